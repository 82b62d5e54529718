import * as documents from "../../shared/services/libraries/documents.js";
import { Reply } from "../../shared/http/reply.js";
import { multipartForm } from "../../shared/http/multipart.js";
import { route } from "../route.js";
import { LibraryParams } from "../../shared/schemas/library.js";
import { DocumentOut, DocumentUploadForm } from "../../shared/schemas/library-document.js";

// 201 with the new document; 200 with the library's document of the same bytes, as Mistral answers.
export const handler = route({ params: LibraryParams, body: DocumentUploadForm, parser: multipartForm, response: DocumentOut }, async ({ params, body, caller }) => {
  const { created, document } = await documents.upload(caller, params.library_id, body);
  return Reply.json(created ? 201 : 200, DocumentOut.parse(document));
});
