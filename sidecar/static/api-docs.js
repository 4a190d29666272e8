// The API docs page: Swagger UI (shipped in the package, served from the sidecar, no CDN)
// rendering the OpenAPI document of this very service. Read-only: "Try it out" is off, so the
// page never sends a request but for openapi.json.
'use strict';
window.addEventListener('DOMContentLoaded', () => {
  window.SwaggerUIBundle({
    url: new URL('openapi.json', document.baseURI).href,
    dom_id: '#api-docs',
    deepLinking: false,
    supportedSubmitMethods: [],
    validatorUrl: null,
    defaultModelsExpandDepth: 0
  });
});
