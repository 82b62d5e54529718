/**
 * An execution's history as GetExecutionHistory reports it: events numbered from 1, each with its
 * `<type>EventDetails`. Built from the library's event log (state entered/exited, Map iterations), the
 * stand-in's own task events (Task* for `.waitForTaskToken` tasks, LambdaFunction* for the engine table's
 * tasks) and its own execution events (started, and how it ended).
 */
import type { StateMachine } from "aws-local-stepfunctions";
import { page, seconds } from "./protocol.js";

type Json = Record<string, any>;
type LibraryEvent = ReturnType<StateMachine["run"]>["eventLogs"] extends AsyncGenerator<infer E> ? E : never;

interface HistoryEvent {
  id: number;
  previousEventId: number;
  timestamp: Date;
  type: string;
  details: Json;
}

/** Fields of event details that carry execution data (left out when `includeExecutionData` is false). */
const DATA_FIELDS = ["input", "inputDetails", "output", "outputDetails", "parameters"];

export class ExecutionHistory {
  private readonly events: HistoryEvent[] = [];
  /** The stand-in's own events stop when the execution ends; the library's until its last event is in. */
  private ending = false;
  private closed = false;

  /** An event of the stand-in's: `details` is `{ <type>EventDetails: {...} }`, or empty. */
  add(type: string, details: Json = {}): void {
    if (!this.ending) this.push(type, details);
  }

  /** Reads the library's event log of the run into the history. */
  follow(eventLogs: AsyncGenerator<LibraryEvent>): void {
    void (async () => {
      for await (const event of eventLogs) this.fromLibrary(event);
    })();
  }

  /**
   * The execution's last event. The library's events reach its log through promise callbacks, so the last
   * of them may still be on the way when the execution ends: they are all in before the next macrotask.
   */
  end(type: string, details: Json): void {
    this.ending = true;
    setImmediate(() => {
      this.push(type, details);
      this.closed = true;
    });
  }

  /** One page of GetExecutionHistory. */
  page(body: Json): Json {
    const withData = body.includeExecutionData !== false;
    const ordered = body.reverseOrder ? this.events.toReversed() : this.events;
    const { items, nextToken } = page(ordered, body);
    return {
      events: items.map((e) => ({
        id: e.id,
        previousEventId: e.previousEventId,
        timestamp: seconds(e.timestamp),
        type: e.type,
        ...(withData ? e.details : withoutData(e.details)),
      })),
      ...(nextToken ? { nextToken } : {}),
    };
  }

  private push(type: string, details: Json, timestamp = new Date()): void {
    if (this.closed) return;
    const id = this.events.length + 1;
    this.events.push({ id, previousEventId: id - 1, timestamp, type, details });
  }

  private fromLibrary(event: LibraryEvent): void {
    const at = new Date(event.timestamp);
    switch (event.type) {
      case "StateEntered":
        return this.push(`${event.state.type}StateEntered`, { stateEnteredEventDetails: { name: event.state.name, ...data("input", event.state.input) } }, at);
      case "StateExited":
        return this.push(`${event.state.type}StateExited`, { stateExitedEventDetails: { name: event.state.name, ...data("output", event.state.output) } }, at);
      case "StateFailed":
        // Step Functions reports a failed Task through its Task* events, and has no failed event for the other simple states.
        if (event.state.type === "Map" || event.state.type === "Parallel") this.push(`${event.state.type}StateFailed`, {}, at);
        return;
      case "MapIterationStarted":
      case "MapIterationSucceeded":
      case "MapIterationFailed": {
        const key = `${event.type[0]!.toLowerCase()}${event.type.slice(1)}EventDetails`;
        return this.push(event.type, { [key]: { name: event.parentState.name, index: event.index } }, at);
      }
      default:
        // The execution's own events are the stand-in's; retries and catches show as the task events that follow.
        return;
    }
  }
}

/** `input`/`output` as history events carry them: a JSON document in a string, with its details. */
export const data = (field: "input" | "output", value: unknown): Json => ({
  [field]: JSON.stringify(value ?? null),
  [`${field}Details`]: { truncated: false },
});

function withoutData(details: Json): Json {
  return Object.fromEntries(
    Object.entries(details).map(([key, value]) => [key, Object.fromEntries(Object.entries(value as Json).filter(([field]) => !DATA_FIELDS.includes(field)))]),
  );
}
