import * as libraries from "../../shared/services/libraries/libraries.js";
import { route } from "../route.js";
import { LibraryOut, LibraryParams } from "../../shared/schemas/library.js";

export const handler = route({ params: LibraryParams, response: LibraryOut }, ({ params, caller }) => libraries.get(caller, params.library_id));
