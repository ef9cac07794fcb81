//! Which routes each listener serves, with `server.ops_listen` set: the
//! webhook listener (`server.listen`, the one providers reach, usually from
//! the internet) serves the webhooks, and the operators' listener serves
//! `/metrics` (which names every provider and tenant), `/admin` and
//! `/console`. Both answer `/healthz` and `/readyz`, for load balancers
//! and orchestrators on either side. Without `ops_listen`, one listener
//! serves everything.
//!
//! The routes are one `App` on both listeners (actix builds one per
//! listener from the same factory); the listener a request came in on is
//! the local address of its connection. Each listener has an allow-list, so
//! a route added later is not exposed on the internet by default.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::web;

use super::problem::ApiError;
use super::AppState;

/// Routes every listener answers.
fn health(first: &str, rest: bool) -> bool {
    !rest && matches!(first, "healthz" | "readyz")
}

/// Whether the webhook listener serves the route whose path starts with
/// segment `first` (`rest`: more segments follow).
fn on_webhook_listener(first: &str, rest: bool) -> bool {
    first == "webhooks" || health(first, rest)
}

/// Whether the operators' listener serves it.
fn on_ops_listener(first: &str, rest: bool) -> bool {
    matches!(first, "admin" | "console") || (first == "metrics" && !rest) || health(first, rest)
}

/// The middleware: a route the listener does not serve is `404`, as if it
/// did not exist there.
pub(super) async fn split(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let ops = req
        .app_data::<web::Data<AppState>>()
        .and_then(|state| state.ops_addr);
    let Some(ops) = ops else {
        return Ok(next.call(req).await?.map_into_left_body());
    };
    // The path the router matches (percent-decoded where it decodes), not
    // the raw one: `/%61dmin` must be judged as `/admin`.
    let path = req.match_info().as_str().trim_start_matches('/');
    let (first, rest) = match path.split_once('/') {
        Some((first, _)) => (first, true),
        None => (path, false),
    };
    let allowed = if req.app_config().local_addr() == ops {
        on_ops_listener(first, rest)
    } else {
        on_webhook_listener(first, rest)
    };
    if allowed {
        return Ok(next.call(req).await?.map_into_left_body());
    }
    let refused = ApiError::NotFound(format!(
        "no route for {} {} on this listener",
        req.method(),
        req.path()
    ));
    Ok(req.error_response(refused).map_into_right_body())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_listener_serves_its_own_routes_and_health() {
        for (first, rest) in [("webhooks", true), ("healthz", false), ("readyz", false)] {
            assert!(on_webhook_listener(first, rest), "{first}");
        }
        for (first, rest) in [
            ("metrics", false),
            ("admin", true),
            ("console", false),
            ("console", true),
        ] {
            assert!(!on_webhook_listener(first, rest), "{first}");
            assert!(on_ops_listener(first, rest), "{first}");
        }
        assert!(!on_ops_listener("webhooks", true));
        assert!(
            !on_webhook_listener("", false),
            "an unknown route is not served either"
        );
        assert!(!on_ops_listener("metrics", true));
    }
}
