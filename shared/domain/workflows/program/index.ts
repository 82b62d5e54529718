/** Workflow programs: what may be registered (validate), what is deployed (compile), and workflow inputs (input). */
export type { DispatchEvent } from "./dispatch.js";
export { DISPATCH_RESOURCE, DISPATCH_RETRY } from "./dispatch.js";
export { compileProgram, DISPATCHER_PLACEHOLDER, type CompiledProgram } from "./compile.js";
export { validateProgram, PROGRAM_MAX_BYTES, type ValidateOptions } from "./validate.js";
export { programUnprocessable, ProgramRefused } from "./issues.js";
export { PLATFORM_BUILTINS, BUILTIN_PARAMETERS, ACTIVITY_NAME, parseResource, type PlatformBuiltin, type TaskResource } from "./resources.js";
export { INTRINSICS } from "./templates.js";
export { PROGRAM_RESUME_STATE, RESUME_UNKNOWN_ERROR, resumeInput, resumeEntryState, type ResumeInput } from "./resume.js";
export { compileInputSchema, checkInputSchema, definitionSchemaIssues, type InputIssue } from "./input.js";
export { isRecord } from "./types.js";
export type { Program, ProgramGraph, ProgramState, ProgramIssue } from "./types.js";
