/** asl-validator 4.0.0 ships no types: the one function we call, as dist/src/validator.js defines it. */
declare module "asl-validator" {
  interface AslValidatorError {
    "Error code": string;
    Message: string;
    schemaError?: { instancePath: string; schemaPath: string };
  }
  interface AslValidatorResult {
    isValid: boolean;
    errors: AslValidatorError[];
    errorsText(separator?: string): string;
  }
  /** Mutates `definition` (adds `QueryLanguage` to every state): pass a copy. */
  export default function aslValidator(definition: unknown, options?: { checkPaths: boolean; checkArn: boolean }): AslValidatorResult;
}
