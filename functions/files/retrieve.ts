import * as files from "../../shared/services/files/files.js";
import { toFileOut } from "../../shared/domain/file-rules.js";
import { route } from "../route.js";
import { FileParams, RetrievedFileOut } from "../../shared/schemas/file.js";

export const handler = route({ params: FileParams, response: RetrievedFileOut }, async ({ params, caller }) => ({
  ...toFileOut(await files.get(caller, params.file_id)),
  deleted: false,
}));
