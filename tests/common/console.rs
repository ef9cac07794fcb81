//! The web console as a test drives it: an app with the admin token and one
//! handler on a local sink, and an operator who signs in and posts forms
//! the way a browser does (session cookie, CSRF field, `Origin`).

use super::sink::Sink;
use super::{spawn_text, test_config, AppOptions, Backend, TestApp};

pub const TOKEN: &str = "console-admin-token-0123456789";

/// The handler's Standard Webhooks signing secret.
pub const SIGNING: &str = "whsec_aGFuZGxlci1zaWduaW5nLWtleS1tYXRlcmlhbA==";

/// Fast retries, two attempts: a failing handler dead-letters quickly.
const DELIVERY: &str = "[delivery]\npoll_interval = \"20ms\"\nbackoff_base = \"20ms\"\nbackoff_max = \"50ms\"\nlease = \"10s\"\n";

/// An app with the console on and handler `billing` (every stripe event)
/// delivering to `sink`; `extra` is appended to the config.
pub async fn console_app(backend: Backend, sink: &Sink, extra: &str) -> TestApp {
    console_app_critical(backend, sink, extra, "[\"*\"]").await
}

/// The same, with `critical` as every provider's critical globs.
pub async fn console_app_critical(
    backend: Backend,
    sink: &Sink,
    extra: &str,
    critical: &str,
) -> TestApp {
    let mut opts = AppOptions::new(backend);
    opts.extra = format!(
        "[admin]\ntoken = \"{TOKEN}\"\n\n[handlers.billing]\nurl = \"{}\"\nevents = [\"stripe:*\"]\n\
         timeout = \"2s\"\nmax_attempts = 2\nsigning_secret = \"{SIGNING}\"\n\n{DELIVERY}\n{extra}",
        sink.url
    );
    let dir = tempfile::tempdir().unwrap();
    let (text, guard) = test_config(&opts, dir.path()).await;
    let text = text.replace("critical = [\"*\"]", &format!("critical = {critical}"));
    spawn_text(text, backend, guard, dir).await
}

/// A signed-in operator: the session cookie and the page's CSRF token.
pub struct Operator<'a> {
    pub app: &'a TestApp,
    pub cookie: String,
    pub csrf: String,
}

/// The `name=value` part of a `Set-Cookie` header, and the whole header.
pub fn set_cookie(res: &reqwest::Response) -> Option<(String, String)> {
    let header = res.headers().get("set-cookie")?.to_str().ok()?.to_owned();
    let pair = header.split(';').next()?.trim().to_owned();
    Some((pair, header))
}

/// The value of the first hidden `csrf` field of a page.
pub fn csrf_of(page: &str) -> Option<String> {
    let at = page.find("name=\"csrf\" value=\"")? + "name=\"csrf\" value=\"".len();
    Some(page[at..].split('"').next()?.to_owned())
}

impl<'a> Operator<'a> {
    /// Sign in with `token`; the answer of the sign-in POST.
    pub async fn post_sign_in(app: &TestApp, token: &str) -> reqwest::Response {
        app.client
            .post(format!("{}/console/sign-in", app.address))
            .header("origin", &app.address)
            .form(&[("token", token)])
            .send()
            .await
            .unwrap()
    }

    /// Sign in with the right token and read the CSRF token off the overview.
    pub async fn sign_in(app: &'a TestApp) -> Operator<'a> {
        let res = Self::post_sign_in(app, TOKEN).await;
        assert_eq!(res.status(), 303);
        let (cookie, _) = set_cookie(&res).expect("a session cookie");
        let mut op = Operator {
            app,
            cookie,
            csrf: String::new(),
        };
        let (status, page) = op.get("/console").await;
        assert_eq!(status, 200, "{page}");
        op.csrf = csrf_of(&page).expect("a CSRF field");
        op
    }

    /// GET with the session: status and body.
    pub async fn get(&self, path: &str) -> (u16, String) {
        let res = self.get_raw(path).await;
        (res.status().as_u16(), res.text().await.unwrap())
    }

    pub async fn get_raw(&self, path: &str) -> reqwest::Response {
        self.app
            .client
            .get(format!("{}{path}", self.app.address))
            .header("cookie", &self.cookie)
            .send()
            .await
            .unwrap()
    }

    /// POST a form with the session, this page's CSRF token and this
    /// origin: the answer (303 on success).
    pub async fn post(&self, path: &str, fields: &[(&str, &str)]) -> reqwest::Response {
        let mut form: Vec<(&str, &str)> = vec![("csrf", &self.csrf)];
        form.extend_from_slice(fields);
        self.post_as(path, &form, &self.app.address).await
    }

    /// POST exactly `form`, from `origin`.
    pub async fn post_as(
        &self,
        path: &str,
        form: &[(&str, &str)],
        origin: &str,
    ) -> reqwest::Response {
        self.app
            .client
            .post(format!("{}{path}", self.app.address))
            .header("cookie", &self.cookie)
            .header("origin", origin)
            .form(form)
            .send()
            .await
            .unwrap()
    }
}
