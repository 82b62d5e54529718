import * as files from "../../shared/services/files/files.js";
import { Reply } from "../../shared/http/reply.js";
import { route } from "../route.js";
import { DownloadQuery, FileParams } from "../../shared/schemas/file.js";

/** Extension route behind signed URLs: public, the token is the credential. */
export const handler = route({ params: FileParams, query: DownloadQuery }, async ({ params, query }) =>
  Reply.redirect(await files.redeemDownload(params.file_id, query.token)),
);
