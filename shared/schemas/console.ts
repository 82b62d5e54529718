import * as z from "zod";

/** GET /console/{asset}: a built file's name (letters, digits, dashes, one extension). */
export const ConsoleAssetParams = z.object({ asset: z.string().regex(/^[A-Za-z0-9_-]{1,100}\.(js|css)$/, "not a console asset name") });
