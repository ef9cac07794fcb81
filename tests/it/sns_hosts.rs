//! Issue 24, the high defect: `sns.*.amazonaws.com` let `*` be `s3`, and
//! `https://sns.s3.amazonaws.com/...` (with S3's legacy names) is S3's
//! address for anyone's bucket named `sns`. Against the real binary on
//! every backend, with the built-in `aws-sns` definition's own
//! `fetch_hosts`: the binary's outbound HTTPS goes through a local
//! `CONNECT` proxy (`HTTPS_PROXY`) to a local server holding a certificate
//! for those very names from a test CA, so a fetch from a bucket host
//! would reach it and succeed. A message signed with the key served there
//! is refused and never delivered; the same message naming a real SNS
//! region's host is fetched, accepted and delivered, which shows the path
//! works.

use crate::common;

use std::time::Duration;

use common::cert_host::{sns_fields, sns_signed, vectors_file, TOPIC};
use common::connect_proxy::ConnectProxy;
use common::pki::Pki;
use common::procs::{config_with, free_port, post, serve_with, wait_ready};
use common::sink::{Reply, Sink};
use common::{now, AppOptions, Backend, HANDLER_SECRET};
use serde_json::json;

/// S3's names for a bucket called `sns`.
const BUCKET_HOSTS: &[&str] = &[
    "sns.s3.amazonaws.com",
    "sns.s3-external-1.amazonaws.com",
    "sns.s3-accelerate.amazonaws.com",
    "sns.s3-us-west-2.amazonaws.com",
];
const REAL_HOST: &str = "sns.us-east-1.amazonaws.com";

async fn a_certificate_on_an_s3_bucket_host_is_refused_and_nothing_delivered(backend: Backend) {
    let pki = Pki::new();
    let mut names = BUCKET_HOSTS.to_vec();
    names.push(REAL_HOST);
    let cert_host = Sink::start_tls(pki.server_config_for(&names));
    cert_host.always(Reply::Body(200, vectors_file("aws-sns", "test-cert.pem")));
    let port = url::Url::parse(&cert_host.url).unwrap().port().unwrap();
    let proxy = ConnectProxy::start(([127, 0, 0, 1], port).into()).await;

    let handler = Sink::start(vec![]);
    let dir = tempfile::tempdir().unwrap();
    let extra = format!(
        "[tls]\nca_file = \"{}\"\n\
         [providers.aws-sns]\nkind = \"aws-sns\"\n\
         [providers.aws-sns.tenants.acme]\nsecrets = [\"{TOPIC}\"]\n\
         [handlers.sns]\nurl = \"{}\"\nevents = [\"aws-sns:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\n\
         [delivery]\npoll_interval = \"20ms\"\n",
        pki.path("ca.pem"),
        handler.url
    );
    let (config, _db, _keys) =
        config_with(AppOptions::new(backend), dir.path(), &handler, &extra).await;
    let port = free_port();
    let _hookline = serve_with(
        &config,
        "all",
        port,
        &[("HTTPS_PROXY", proxy.url.as_str()), ("NO_PROXY", "")],
    );
    wait_ready(port).await;

    let message = |id: &str| {
        sns_fields(
            json!({"Type": "Notification", "MessageId": id, "TopicArn": TOPIC,
            "Subject": "Order placed", "Message": "{\"order\":1}",
            "Timestamp": common::cert_host::rfc3339(now())}),
        )
    };
    for (i, host) in BUCKET_HOSTS.iter().enumerate() {
        let forged = sns_signed(
            message(&format!("m-bucket-{i}")),
            &format!("https://{host}/cert.pem"),
        );
        let (status, body) = post(port, &forged).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (401, Some("invalid_signature")),
            "{host}: {body}"
        );
    }
    // The same message from a real region's host: fetched through the
    // same proxy, accepted.
    let genuine = sns_signed(
        message("m-region"),
        &format!("https://{REAL_HOST}/SimpleNotificationService-test.pem"),
    );
    let (status, body) = post(port, &genuine).await;
    assert_eq!(
        (status, body["status"].as_str()),
        (200, Some("accepted")),
        "{body}"
    );

    assert_eq!(
        proxy.asked(),
        [format!("{REAL_HOST}:443")],
        "no connection to a bucket host was even opened"
    );
    assert_eq!(cert_host.received().len(), 1);
    let got = handler.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(got[0].header("x-hookline-event-id"), Some("m-region"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(handler.received().len(), 1, "only the genuine message");
}

backend_tests!(a_certificate_on_an_s3_bucket_host_is_refused_and_nothing_delivered);
