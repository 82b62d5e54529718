import * as z from "zod";
import { Reply } from "../../shared/http/reply.js";
import { route } from "../route.js";
import { RENDERER_ASSETS, rendererAsset, rendererVersion, type RendererAsset } from "./reference.js";

const PageQuery = z.object({ asset: z.enum(Object.keys(RENDERER_ASSETS) as [RendererAsset, ...RendererAsset[]]).optional() });

/**
 * The reference page: Swagger UI rendering GET /openapi.json, its try-it console sending the bearer key the
 * reader enters under "Authorize". Its script and stylesheet are served by this route too (`?asset=`), from
 * the package the build put beside the bundle: no CDN. Relative URLs keep a stage or base path.
 */
export const handler = route({ query: PageQuery }, async ({ query }) => {
  const version = rendererVersion();
  if (query.asset) return new Reply(200, rendererAsset(query.asset), { "content-type": RENDERER_ASSETS[query.asset], "cache-control": "public, max-age=86400, immutable" });
  return new Reply(200, page(version), { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" });
});

const page = (version: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Platform API reference</title>
<link rel="stylesheet" href="docs?asset=swagger-ui.css&amp;v=${version}">
</head>
<body>
<div id="reference"></div>
<script src="docs?asset=swagger-ui-bundle.js&amp;v=${version}"></script>
<script>
window.ui = SwaggerUIBundle({
  url: "openapi.json",
  dom_id: "#reference",
  deepLinking: true,
  persistAuthorization: true,
  displayRequestDuration: true,
  filter: true,
  docExpansion: "list",
  defaultModelsExpandDepth: 0,
});
</script>
</body>
</html>
`;
