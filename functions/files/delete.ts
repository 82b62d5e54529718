import * as files from "../../shared/services/files/files.js";
import { route } from "../route.js";
import { FileDeletedOut, FileParams } from "../../shared/schemas/file.js";

export const handler = route({ params: FileParams, response: FileDeletedOut }, async ({ params, caller }) => {
  await files.remove(caller, params.file_id);
  return { id: params.file_id, object: "file", deleted: true };
});
