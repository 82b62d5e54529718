import { presignedOrigin } from "../../shared/services/files/files.js";
import { Reply } from "../../shared/http/reply.js";
import { route } from "../route.js";
import { consoleBuild } from "./assets.js";

/**
 * The console's HTML entry: a shell that loads the hashed script and stylesheet (relative URLs keep a stage or
 * base path). Its Content-Security-Policy allows nothing but this origin's files and calls, and the storage
 * origin presigned upload and download URLs point at; no inline script or style, no framing.
 */
export const handler = route({}, async () => {
  const [build, storage] = await Promise.all([consoleBuild(), presignedOrigin()]);
  return new Reply(200, page(build.script, build.style), {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-cache",
    "content-security-policy": contentSecurityPolicy(storage),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  });
});

export const contentSecurityPolicy = (storageOrigin: string): string =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${storageOrigin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");

const page = (script: string, style: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Platform console</title>
<link rel="stylesheet" href="console/${style}">
<script type="module" src="console/${script}"></script>
</head>
<body>
<div id="console"></div>
</body>
</html>
`;
