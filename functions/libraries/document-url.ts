import * as documents from "../../shared/services/libraries/documents.js";
import { route } from "../route.js";
import { DocumentParams, SignedUrlOut } from "../../shared/schemas/library-document.js";

export const handler = route({ params: DocumentParams, response: SignedUrlOut }, ({ params, caller }) => documents.signedUrl(caller, params.library_id, params.document_id));
