import * as libraries from "../../shared/services/libraries/libraries.js";
import { route } from "../route.js";
import { LibraryOut, LibraryParams, UpdateLibraryRequest } from "../../shared/schemas/library.js";

// Mistral's deprecated PUT: the same body and answer as PATCH (fields left out stay as they are).
export const handler = route({ params: LibraryParams, body: UpdateLibraryRequest, response: LibraryOut }, ({ params, body, caller }) => libraries.update(caller, params.library_id, body));
