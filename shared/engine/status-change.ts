/**
 * EventBridge's "Step Functions Execution Status Change" event, as a rule on `aws.states` delivers it to
 * a function in the cloud and the local Step Functions stand-in hands it to its status-change callback
 * (infra/local/stepfunctions.ts). Dates in `detail` are epoch milliseconds; `input` and `output` are the
 * JSON documents as strings.
 */
export type ExecutionStatus = "RUNNING" | "SUCCEEDED" | "FAILED" | "TIMED_OUT" | "ABORTED";

export interface StatusChangeDetail {
  executionArn: string;
  /** The state machine's ARN, never a version's. */
  stateMachineArn: string;
  /** Present when the execution was started on a published version. */
  stateMachineVersionArn?: string;
  stateMachineAliasArn?: string;
  name: string;
  status: ExecutionStatus;
  startDate: number;
  stopDate: number | null;
  input: string;
  output: string | null;
  error: string | null;
  cause: string | null;
  inputDetails: { included: boolean };
  outputDetails: { included: boolean } | null;
}

export interface StatusChangeEvent {
  version: "0";
  id: string;
  "detail-type": "Step Functions Execution Status Change";
  source: "aws.states";
  account: string;
  /** ISO 8601 without milliseconds, as EventBridge writes it. */
  time: string;
  region: string;
  /** The execution's ARN. */
  resources: string[];
  detail: StatusChangeDetail;
}
