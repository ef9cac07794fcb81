//! The filter language: Hookdeck's documented examples, then each
//! operator's edge cases (types, missing fields, arrays).

use serde_json::{json, Value};

use super::{Filter, Request};

/// Whether `filter` (over the body) lets `body` through.
fn body_allows(filter: Value, body: Value) -> bool {
    let f = Filter::compile(&json!({ "body": filter })).expect("compiles");
    f.allows(&Request::new(
        [],
        body.to_string().as_bytes(),
        "",
        "/webhooks/p/t",
    ))
}

fn compile_error(filter: Value) -> String {
    Filter::compile(&filter).expect_err("refused").to_string()
}

// The examples of https://hookdeck.com/docs/filters ("Filters syntax").
#[test]
fn hookdecks_documented_examples_match() {
    // Single value match.
    assert!(body_allows(json!(false), json!(false)));
    // Simple primitive match.
    assert!(body_allows(
        json!({"type": "order/created"}),
        json!({"type": "order/created", "order": {"id": 123}})
    ));
    // Nested object match.
    assert!(body_allows(
        json!({"product": {"inventory": 0}}),
        json!({"product": {"title": "A product", "inventory": 0}})
    ));
    // "Also valid": an object against an array of objects.
    assert!(body_allows(
        json!({"order": {"items": {"id": 456}}}),
        json!({"order": {"id": 123, "items": [{"id": 456, "title": "My product"}]}})
    ));
    // Array contains match.
    assert!(body_allows(
        json!({"product": {"tags": "gift"}}),
        json!({"product": {"title": "Gift Card", "tags": ["gift", "something"]}})
    ));
    // Array contains (multiple) match: every value must be there.
    let tags = json!({"product": {"title": "Gift Card", "tags": ["gift", "something", "another"]}});
    assert!(body_allows(
        json!({"product": {"tags": ["gift", "something"]}}),
        tags.clone()
    ));
    assert!(!body_allows(
        json!({"product": {"tags": ["gift", "missing"]}}),
        tags
    ));
}

#[test]
fn a_primitive_matches_exactly() {
    assert!(!body_allows(
        json!({"type": "order"}),
        json!({"type": "order/created"})
    ));
    assert!(!body_allows(json!({"n": 1}), json!({"n": "1"})));
    assert!(body_allows(json!({"n": 1}), json!({"n": 1.0})));
    assert!(!body_allows(json!({"n": null}), json!({})));
    assert!(body_allows(json!({"n": null}), json!({"n": null})));
    assert!(!body_allows(json!({"a": {"b": 1}}), json!({"a": 1})));
}

#[test]
fn comparisons_take_numbers_or_strings_of_the_same_type() {
    let f = json!({"amount": {"$gte": 1000}});
    assert!(body_allows(f.clone(), json!({"amount": 1000})));
    assert!(body_allows(f.clone(), json!({"amount": 1000.5})));
    assert!(!body_allows(f.clone(), json!({"amount": 999})));
    assert!(!body_allows(f.clone(), json!({"amount": "5000"})));
    assert!(!body_allows(f, json!({})));
    assert!(body_allows(
        json!({"n": {"$gt": 1, "$lt": 3}}),
        json!({"n": 2})
    ));
    assert!(!body_allows(json!({"n": {"$gt": 2}}), json!({"n": 2})));
    assert!(body_allows(json!({"n": {"$lte": 2}}), json!({"n": 2})));
    assert!(!body_allows(json!({"n": {"$lt": 2}}), json!({"n": 2})));
    // ISO dates compare as text.
    assert!(body_allows(
        json!({"at": {"$gte": "2024-01-01"}}),
        json!({"at": "2024-06-30T10:00:00Z"})
    ));
    // Any item of an array.
    assert!(body_allows(json!({"n": {"$gt": 5}}), json!({"n": [1, 9]})));
}

#[test]
fn eq_and_neq_are_deep_and_neq_holds_for_a_missing_field() {
    assert!(body_allows(
        json!({"a": {"$eq": [1, 2]}}),
        json!({"a": [1, 2]})
    ));
    assert!(!body_allows(
        json!({"a": {"$eq": [1]}}),
        json!({"a": [1, 2]})
    ));
    assert!(body_allows(
        json!({"a": {"$eq": {"b": 1}}}),
        json!({"a": {"b": 1}})
    ));
    assert!(!body_allows(
        json!({"a": {"$eq": {"b": 1}}}),
        json!({"a": {"b": 1, "c": 2}})
    ));
    assert!(body_allows(json!({"a": {"$neq": "x"}}), json!({"a": "y"})));
    assert!(!body_allows(json!({"a": {"$neq": "x"}}), json!({"a": "x"})));
    assert!(body_allows(json!({"a": {"$neq": "x"}}), json!({})));
}

#[test]
fn in_and_nin_take_a_list_or_a_substring() {
    let f = json!({"currency": {"$in": ["usd", "eur"]}});
    assert!(body_allows(f.clone(), json!({"currency": "eur"})));
    assert!(!body_allows(f.clone(), json!({"currency": "gbp"})));
    assert!(!body_allows(f, json!({})));
    assert!(body_allows(
        json!({"tags": {"$in": ["a", "b"]}}),
        json!({"tags": ["z", "b"]})
    ));
    assert!(body_allows(
        json!({"title": {"$in": "Gift"}}),
        json!({"title": "A Gift Card"})
    ));
    assert!(body_allows(
        json!({"tags": {"$in": "gift"}}),
        json!({"tags": ["gift"]})
    ));
    let nin = json!({"currency": {"$nin": ["usd"]}});
    assert!(body_allows(nin.clone(), json!({"currency": "eur"})));
    assert!(!body_allows(nin.clone(), json!({"currency": "usd"})));
    assert!(body_allows(nin, json!({})));
}

#[test]
fn starts_with_ends_with_and_exist() {
    let f = json!({"ref": {"$startsWith": "refs/heads/"}});
    assert!(body_allows(f.clone(), json!({"ref": "refs/heads/main"})));
    assert!(!body_allows(f.clone(), json!({"ref": "refs/tags/v1"})));
    assert!(!body_allows(f, json!({"ref": 12})));
    assert!(body_allows(
        json!({"ref": {"$endsWith": "/main"}}),
        json!({"ref": "refs/heads/main"})
    ));
    assert!(body_allows(
        json!({"a": {"$exist": true}}),
        json!({"a": null})
    ));
    assert!(!body_allows(json!({"a": {"$exist": true}}), json!({})));
    assert!(body_allows(json!({"a": {"$exist": false}}), json!({})));
    assert!(!body_allows(
        json!({"a": {"$exist": false}}),
        json!({"a": 0})
    ));
}

#[test]
fn or_and_not_combine_filters() {
    let f = json!({"$or": [{"type": "a"}, {"amount": {"$gt": 10}}]});
    assert!(body_allows(f.clone(), json!({"type": "a", "amount": 1})));
    assert!(body_allows(f.clone(), json!({"type": "b", "amount": 11})));
    assert!(!body_allows(f, json!({"type": "b", "amount": 1})));
    let and = json!({"n": {"$and": [{"$gt": 1}, {"$lt": 5}]}});
    assert!(body_allows(and.clone(), json!({"n": 3})));
    assert!(!body_allows(and, json!({"n": 7})));
    assert!(body_allows(
        json!({"type": {"$not": "a"}}),
        json!({"type": "b"})
    ));
    assert!(!body_allows(
        json!({"type": {"$not": "a"}}),
        json!({"type": "a"})
    ));
    assert!(body_allows(json!({"$not": {"type": "a"}}), json!({})));
}

#[test]
fn headers_match_without_case_and_the_path_as_text() {
    let f = Filter::compile(&json!({
        "headers": {"X-GitHub-Event": "push"},
        "path": {"$startsWith": "/webhooks/github/"}
    }))
    .unwrap();
    assert_eq!(f.header_names(), ["x-github-event"]);
    let push = Request::new(
        [("x-github-event", "push")],
        b"{}",
        "",
        "/webhooks/github/acme",
    );
    assert!(f.allows(&push));
    let issue = Request::new(
        [("X-GitHub-Event", "issues")],
        b"{}",
        "",
        "/webhooks/github/acme",
    );
    assert!(!f.allows(&issue));
    let elsewhere = Request::new([("x-github-event", "push")], b"{}", "", "/webhooks/gh/acme");
    assert!(!f.allows(&elsewhere));
}

#[test]
fn the_query_is_matched_as_decoded_parameters() {
    let f = Filter::compile(&json!({
        "query": {"source": "shop", "tag": "b", "n": {"$startsWith": "4"}}
    }))
    .unwrap();
    let q = |query: &str| Request::new([], b"{}", query, "/");
    // Decoded values; a repeated name is an array, matched by containment.
    assert!(f.allows(&q("source=shop&tag=a&tag=b&n=42")));
    assert!(f.allows(&q("n=4%32&source=sh%6Fp&tag=b")));
    assert!(!f.allows(&q("source=shop&tag=a&n=42")));
    assert!(!f.allows(&q("source=shop&tag=b")), "a missing parameter");
    assert!(!f.allows(&q("")));
    let exist = Filter::compile(&json!({"query": {"debug": {"$exist": false}}})).unwrap();
    assert!(exist.allows(&q("a=1")));
    assert!(!exist.allows(&q("debug=")));
}

#[test]
fn a_body_that_is_not_json_is_matched_as_text() {
    let f = Filter::compile(&json!({"body": {"$startsWith": "<?xml"}})).unwrap();
    assert!(f.allows(&Request::new([], b"<?xml version=\"1.0\"?><a/>", "", "/")));
    assert!(!f.allows(&Request::new([], b"{\"a\":1}", "", "/")));
}

#[test]
fn mistakes_are_reported_with_their_path() {
    assert_eq!(
        compile_error(json!({"body": {"data": {"amount": {"$gte": true}}}})),
        "$.body.data.amount: $gte needs a number or a string"
    );
    assert_eq!(
        compile_error(json!({"body": {"tags": [1, {"$startsWith": 2}]}})),
        "$.body.tags[1]: $startsWith needs a string"
    );
    assert_eq!(
        compile_error(json!({"body": {"a": {"$exist": "yes"}}})),
        "$.body.a: $exist needs true or false"
    );
    assert_eq!(
        compile_error(json!({"body": {"a": {"$in": 3}}})),
        "$.body.a: $in needs an array or a string"
    );
    assert_eq!(
        compile_error(json!({"body": {"$or": []}})),
        "$.body.$or: needs a non-empty array of filters"
    );
    assert!(compile_error(json!({"body": {"a": {"$regex": "x"}}}))
        .starts_with("$.body.a: unknown operator $regex"));
    assert!(compile_error(json!({"data": {}}))
        .starts_with("$.data: expected headers, body, query or path"));
    assert!(compile_error(json!([1])).starts_with("$: must be an object"));
    assert!(Filter::parse("{nope")
        .unwrap_err()
        .to_string()
        .starts_with("$: not JSON"));
}
