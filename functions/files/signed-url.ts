import * as files from "../../shared/services/files/files.js";
import { publicUrl } from "../../shared/http/public-url.js";
import { route } from "../route.js";
import { FileParams, SignedUrlOut, SignedUrlQuery } from "../../shared/schemas/file.js";

export const handler = route({ params: FileParams, query: SignedUrlQuery, response: SignedUrlOut }, async ({ params, query, caller, event }) => ({
  url: await files.signedUrl(caller, params.file_id, query.expiry, publicUrl(event, `/v1/files/${params.file_id}/download`)),
}));
