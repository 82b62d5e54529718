import * as documents from "../../shared/services/libraries/documents.js";
import { route } from "../route.js";
import { LibraryParams } from "../../shared/schemas/library.js";
import { ListDocumentsOut, ListDocumentsQuery } from "../../shared/schemas/library-document.js";

export const handler = route({ params: LibraryParams, query: ListDocumentsQuery, response: ListDocumentsOut }, ({ params, query, caller }) => documents.list(caller, params.library_id, query));
