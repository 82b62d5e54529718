import { ApiError } from "../../shared/domain/errors.js";
import { Reply } from "../../shared/http/reply.js";
import { ConsoleAssetParams } from "../../shared/schemas/console.js";
import { route } from "../route.js";
import { consoleBuild } from "./assets.js";

/** One of the console's built files; their names carry a content hash, so a client keeps one for a year. */
export const handler = route({ params: ConsoleAssetParams }, async ({ params }) => {
  const asset = (await consoleBuild()).assets.find((a) => a.name === params.asset);
  if (!asset) throw new ApiError(404, "not_found_error", `No console asset named '${params.asset}'`, "console_asset_not_found");
  return new Reply(200, Buffer.from(asset.body).toString("utf8"), {
    "content-type": asset.contentType,
    "cache-control": "public, max-age=31536000, immutable",
    "x-content-type-options": "nosniff",
  });
});
