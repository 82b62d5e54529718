import * as accesses from "../../shared/services/libraries/accesses.js";
import { route } from "../route.js";
import { LibraryParams, SharingDelete, SharingOut } from "../../shared/schemas/library.js";

// 200 with the access removed, as Mistral answers today (the SDK also takes a 204).
export const handler = route({ params: LibraryParams, body: SharingDelete, response: SharingOut }, ({ params, body, caller }) => accesses.unshare(caller, params.library_id, body));
