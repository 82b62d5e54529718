import * as accesses from "../../shared/services/libraries/accesses.js";
import { route } from "../route.js";
import { LibraryParams, SharingOut, SharingRequest } from "../../shared/schemas/library.js";

export const handler = route({ params: LibraryParams, body: SharingRequest, response: SharingOut }, ({ params, body, caller }) => accesses.share(caller, params.library_id, body));
