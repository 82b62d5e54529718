import * as libraries from "../../shared/services/libraries/libraries.js";
import { route } from "../route.js";
import { ListLibrariesOut, ListLibrariesQuery } from "../../shared/schemas/library.js";

export const handler = route({ query: ListLibrariesQuery, response: ListLibrariesOut }, ({ query, caller }) => libraries.list(caller, query));
