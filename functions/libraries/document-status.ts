import * as documents from "../../shared/services/libraries/documents.js";
import { route } from "../route.js";
import { DocumentParams, ProcessingStatusOut } from "../../shared/schemas/library-document.js";

export const handler = route({ params: DocumentParams, response: ProcessingStatusOut }, ({ params, caller }) => documents.status(caller, params.library_id, params.document_id));
