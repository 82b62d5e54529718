import * as libraries from "../../shared/services/libraries/libraries.js";
import { Reply } from "../../shared/http/reply.js";
import { route } from "../route.js";
import { CreateLibraryRequest, LibraryOut } from "../../shared/schemas/library.js";

// 201: the SDK expects it here and rejects a 200.
export const handler = route({ body: CreateLibraryRequest, response: LibraryOut }, async ({ body, caller }) => Reply.json(201, LibraryOut.parse(await libraries.create(caller, body))));
