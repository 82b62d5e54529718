import * as z from "zod";

export const Uuid = z.uuid({ message: "Input should be a valid UUID" });

/** Page-number pagination as the files and batch routes take it. */
export const pageQuery = (defaultSize: number, maxSize = 1000) => ({
  page: z.coerce.number<string>().int().min(0).default(0),
  page_size: z.coerce.number<string>().int().min(1).max(maxSize).default(defaultSize),
});
