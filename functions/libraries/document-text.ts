import * as documents from "../../shared/services/libraries/documents.js";
import { route } from "../route.js";
import { DocumentParams, DocumentTextOut, DocumentTextQuery } from "../../shared/schemas/library-document.js";

export const handler = route({ params: DocumentParams, query: DocumentTextQuery, response: DocumentTextOut }, ({ params, query, caller }) => documents.textContent(caller, params.library_id, params.document_id, query));
