import * as files from "../../shared/services/files/files.js";
import { Reply } from "../../shared/http/reply.js";
import { route } from "../route.js";
import { FileParams } from "../../shared/schemas/file.js";

/** Bytes never pass through Lambda: the client follows a redirect to a short-lived S3 URL. */
export const handler = route({ params: FileParams }, async ({ params, caller }) =>
  Reply.redirect(await files.contentUrl(caller, params.file_id)),
);
