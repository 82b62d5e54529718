import * as libraries from "../../shared/services/libraries/libraries.js";
import { route } from "../route.js";
import { LibraryOut, LibraryParams, UpdateLibraryRequest } from "../../shared/schemas/library.js";

export const handler = route({ params: LibraryParams, body: UpdateLibraryRequest, response: LibraryOut }, ({ params, body, caller }) => libraries.update(caller, params.library_id, body));
