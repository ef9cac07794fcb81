//! Broker destinations over TLS, on every backend: a private nats-server
//! (`tls://`) and a private Mosquitto (`mqtts://`) that both require a
//! client certificate; hookline trusts their CA through `[tls] ca_file`
//! and presents the handler's `client_cert_file`, on rustls.

use crate::brokers::{wait_attempts, FAST};
use crate::common;

use std::time::Duration;

use common::brokers::{test_name, MqttSubscriber, NatsStream};
use common::pki::Pki;
use common::private_brokers::{PrivateMosquitto, PrivateNats};
use common::procs::free_port;
use common::{spawn_app_with, AppOptions, Backend, Webhook};
use hookline::store::delivery::DeliveryState;

async fn brokers_over_tls_with_a_client_certificate(backend: Backend) {
    let pki = Pki::new();
    let nats = PrivateNats::start_with(
        [
            "--tls",
            "--tlscert",
            &pki.path("server.pem"),
            "--tlskey",
            &pki.path("server.key"),
            "--tlscacert",
            &pki.path("ca.pem"),
            "--tlsverify",
        ]
        .map(String::from)
        .to_vec(),
    )
    .await;
    let tls_port = free_port();
    let mosquitto = PrivateMosquitto::start(&format!(
        "listener {tls_port} 127.0.0.1\ncafile {}\ncertfile {}\nkeyfile {}\nrequire_certificate true\n",
        pki.path("ca.pem"),
        pki.path("server.pem"),
        pki.path("server.key")
    ))
    .await;
    let name = test_name();
    let client = async_nats::ConnectOptions::new()
        .require_tls(true)
        .add_root_certificates(pki.path("ca.pem").into())
        .add_client_certificate(pki.path("client.pem").into(), pki.path("client.key").into())
        .connect(format!("tls://localhost:{}", nats.port))
        .await
        .expect("the test's own TLS client connects");
    let stream = NatsStream::create_on(client, &nats.url(), &name).await;
    // The test listens on the plain listener; hookline publishes over TLS.
    let subscriber = MqttSubscriber::start(
        &format!("mqtt://127.0.0.1:{}", mosquitto.port),
        &format!("{name}/#"),
    )
    .await;
    let certs = format!(
        "client_cert_file = \"{}\"\nclient_key_file = \"{}\"\nevents = [\"stripe:*\"]\ntimeout = \"3s\"\nmax_attempts = 20\n",
        pki.path("client.pem"),
        pki.path("client.key")
    );
    let mut opts = AppOptions::new(backend);
    opts.extra = format!(
        "[handlers.orders]\nkind = \"nats\"\nurl = \"tls://localhost:{}\"\nsubject = \"{name}.{{event_type}}\"\n{certs}\n\
         [handlers.iot]\nkind = \"mqtt\"\nurl = \"mqtts://localhost:{tls_port}\"\ntopic = \"{name}/{{event_type}}\"\n{certs}\n\
         [tls]\nca_file = \"{}\"\n\n{FAST}",
        nats.port,
        pki.path("ca.pem")
    );
    let app = spawn_app_with(opts).await;
    let w = Webhook::new("stripe", "acme", "evt_tls", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.1["status"], "accepted");
    for h in ["orders", "iot"] {
        wait_attempts(&app, "evt_tls", h, DeliveryState::Delivered, 1).await;
    }
    let m = stream.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(m[0].payload.as_ref(), w.body.as_slice());
    let got = subscriber.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(got[0].payload, w.body);
}

backend_tests!(brokers_over_tls_with_a_client_certificate);
