import * as files from "../../shared/services/files/files.js";
import { toFileOut } from "../../shared/domain/file-rules.js";
import { route } from "../route.js";
import { CompleteUploadBody, FileOut, UploadParams } from "../../shared/schemas/file.js";

export const handler = route({ params: UploadParams, body: CompleteUploadBody, response: FileOut }, async ({ params, body, caller }) =>
  toFileOut(await files.completeUpload(caller, params.upload_id, body)),
);
