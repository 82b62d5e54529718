import * as documents from "../../shared/services/libraries/documents.js";
import { route } from "../route.js";
import { DocumentOut, DocumentParams } from "../../shared/schemas/library-document.js";

export const handler = route({ params: DocumentParams, response: DocumentOut }, ({ params, caller }) => documents.get(caller, params.library_id, params.document_id));
