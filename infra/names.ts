/** files-api → FilesApi: construct ids and output names from the lower-case names the code uses. */
export const pascal = (name: string) => name.toLowerCase().replace(/(^|[-_/])(\w)/g, (_, __, c: string) => c.toUpperCase());
