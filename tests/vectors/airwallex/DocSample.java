// The signature check of Airwallex's Java code example
// (https://www.airwallex.com/docs/developer-tools__listen-for-webhook-events__code-examples),
// lines 20-34 of the sample, with the Spring request replaced by arguments.
// Three fixes were needed for it to compile, nothing else changed (NOTES.md):
// a missing `;` after `new HmacUtils(...)`, a stray `)` after
// `hmacUtils.hmacHex(valueToDigest)`, and `.toString()` on the StringBuilder
// (HmacUtils.hmacHex has no CharSequence overload).
//
// Run: java -cp /usr/share/java/commons-codec.jar DocSample.java
// stdin: one request a line, "secret<TAB>x-timestamp<TAB>base64(payload)<TAB>x-signature";
// stdout: "true" or "false" a line.
import org.apache.commons.codec.digest.HmacAlgorithms;
import org.apache.commons.codec.digest.HmacUtils;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

public class DocSample {
    static boolean receive(String secret, String timestampHeader, String payload, String signatureHeader) {
        StringBuilder valueToDigest = new StringBuilder();
        // Get the timestamp from header
        String timestamp = timestampHeader;
        valueToDigest.append(timestamp);
        valueToDigest.append(payload);

        // Get the signature from header
        String signature = signatureHeader;

        // Check if calculated signature matches the signature from the request
        HmacUtils hmacUtils = new HmacUtils(HmacAlgorithms.HMAC_SHA_256, secret);
        if (hmacUtils.hmacHex(valueToDigest.toString()).equals(signature)) {
            return true;
        } else {
            return false;
        }
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split("\t", -1);
            String payload = new String(Base64.getDecoder().decode(f[2]), StandardCharsets.UTF_8);
            System.out.println(receive(f[0], f[1], payload, f[3]));
        }
    }
}
