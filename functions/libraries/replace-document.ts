import * as documents from "../../shared/services/libraries/documents.js";
import { route } from "../route.js";
import { DocumentOut, DocumentParams, UpdateDocumentRequest } from "../../shared/schemas/library-document.js";

// Mistral's deprecated PUT spelling of the PATCH (the SDK's librariesDocumentsUpdateV1).
export const handler = route({ params: DocumentParams, body: UpdateDocumentRequest, response: DocumentOut }, ({ params, body, caller }) => documents.update(caller, params.library_id, params.document_id, body));
