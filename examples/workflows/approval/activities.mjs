/**
 * Example workflow "approval", for the reference worker (README.md here):
 *
 *   npm run worker -- --deployment examples --module examples/workflows/approval/activities.mjs
 *
 * Publishes that it waits → takes one `add_note` update (the activity `format_note` runs inside the update
 * handler; the update's caller gets its result) → publishes the note → waits for the `approve` signal →
 * `finalize` (activity) → succeeds with the approval. Queries: `note` and `stage` (projections of the
 * published state), and the built-ins `__status` and `__state`.
 */

export const workflows = [
  {
    name: "approval",
    display_name: "Approve a request",
    description: "Waits for a note (an update, answered by an activity) and an approval (a signal), then finalizes.",
    definition: {
      input_schema: { type: "object", properties: { request: { type: "string" } }, required: ["request"], additionalProperties: false },
      signals: [{ name: "approve", description: "Approve the request", input_schema: { type: "object", properties: { by: { type: "string" } }, required: ["by"], additionalProperties: false } }],
      updates: [
        {
          name: "add_note",
          description: "Adds a note; answers the note as stored",
          input_schema: { type: "object", properties: { text: { type: "string", minLength: 1 } }, required: ["text"], additionalProperties: false },
          output_schema: { type: "object", properties: { note: { type: "string" } } },
        },
      ],
      queries: [
        { name: "stage", description: "Where the request is", input_schema: {}, projection: "$.stage" },
        { name: "note", description: "The note, once added", input_schema: {}, projection: "$.note" },
      ],
      execution_timeout: 3600,
    },
    program: {
      Comment: "Approve a request",
      StartAt: "Announce",
      States: {
        Announce: { Type: "Task", Resource: "platform:publish_state", Parameters: { stage: "waiting for a note", "request.$": "$.request" }, ResultPath: null, Next: "TakeNote" },
        TakeNote: { Type: "Task", Resource: "platform:await_update", Parameters: { name: "add_note" }, TimeoutSeconds: 3600, ResultPath: "$.update", Next: "FormatNote" },
        FormatNote: { Type: "Task", Resource: "activity:format_note", Parameters: { "text.$": "$.update.input.text", "request.$": "$.request" }, ResultPath: "$.note", Next: "AnswerNote" },
        AnswerNote: { Type: "Task", Resource: "platform:complete_update", Parameters: { "update_id.$": "$.update.update_id", result: { "note.$": "$.note.note" } }, ResultPath: null, Next: "PublishNote" },
        PublishNote: { Type: "Task", Resource: "platform:publish_state", Parameters: { stage: "waiting for approval", "request.$": "$.request", "note.$": "$.note.note" }, ResultPath: null, Next: "AwaitApproval" },
        AwaitApproval: { Type: "Task", Resource: "platform:await_signal", Parameters: { name: "approve" }, TimeoutSeconds: 3600, ResultPath: "$.approval", Next: "Finalize" },
        Finalize: { Type: "Task", Resource: "activity:finalize", Parameters: { "request.$": "$.request", "note.$": "$.note.note", "by.$": "$.approval.by" }, ResultPath: "$.final", End: true, OutputPath: "$.final" },
      },
    },
  },
];

export const activities = {
  /** The update handler's activity: the stored form of the note. */
  async format_note({ text, request }) {
    return { note: `[${request}] ${text.trim()}` };
  },
  async finalize({ request, note, by }) {
    return { request, note, approved_by: by, approved: true };
  },
};
