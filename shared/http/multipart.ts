import httpMultipartBodyParser from "@middy/http-multipart-body-parser";
import { parsedBody, type BodyParser } from "./body.js";

/** Routes opt in with `route({ parser: multipartForm })` so that busboy ships only in the bundles that parse forms. */
export const multipartForm: BodyParser = () =>
  parsedBody({
    accepts: /^multipart\/form-data/i,
    parser: httpMultipartBodyParser({ busboy: { limits: { files: 1 } } }),
    invalid: "value_error",
  });
