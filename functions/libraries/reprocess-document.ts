import * as documents from "../../shared/services/libraries/documents.js";
import { Reply } from "../../shared/http/reply.js";
import { route } from "../route.js";
import { DocumentParams } from "../../shared/schemas/library-document.js";

export const handler = route({ params: DocumentParams }, async ({ params, caller }) => {
  await documents.reprocess(caller, params.library_id, params.document_id);
  return Reply.empty(204);
});
