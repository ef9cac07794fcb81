// The transformation of bench/run's filter + transform pass (issue 27):
// Hookdeck's addHandler("transform", ...), reshaping the bench body.
addHandler("transform", (request, context) => {
  const event = request.body;
  const object = (event.data && event.data.object) || {};
  const [resource, ...action] = event.type.split(".");
  request.body = {
    id: event.id,
    source: context.provider,
    tenant: context.tenant,
    resource: resource,
    action: action.join("."),
    attempt: context.attempt,
    payload_bytes: JSON.stringify(object).length,
    payload: object,
  };
  request.headers["x-event-type"] = event.type;
  request.headers["x-source"] = context.provider;
  return request;
});
