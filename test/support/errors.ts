/** The platform's error body (`{object: "error", …}`), as the API answers it. */
export const aPlatformError = (error: { message: string; type: string; param: string | null; code: string }) => ({
  object: "error",
  message: error.message,
  type: error.type,
  param: error.param,
  code: error.code,
});
