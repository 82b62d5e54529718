import * as files from "../../shared/services/files/files.js";
import { toFileOut } from "../../shared/domain/file-rules.js";
import { route } from "../route.js";
import { FileListOut, FileListQuery } from "../../shared/schemas/file.js";

export const handler = route({ query: FileListQuery, response: FileListOut }, async ({ query, caller }) => {
  const { items, total } = await files.list(caller, query);
  return { object: "list", data: items.map(toFileOut), total };
});
