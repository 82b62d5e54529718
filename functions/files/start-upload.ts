import * as files from "../../shared/services/files/files.js";
import { route } from "../route.js";
import { CreateUploadBody, UploadOut } from "../../shared/schemas/file.js";

/** Extension route: a presigned multipart upload for files too large for POST /v1/files. */
export const handler = route({ body: CreateUploadBody, response: UploadOut }, ({ body, caller }) => files.startUpload(caller, body));
