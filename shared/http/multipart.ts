import httpMultipartBodyParser from "@middy/http-multipart-body-parser";

/**
 * The body parser for multipart/form-data routes. Handlers opt in with `route({ parser: multipartForm })`
 * so that busboy ships only in the bundles that parse forms.
 */
export const multipartForm = () => httpMultipartBodyParser({ busboy: { limits: { files: 1 } } });
