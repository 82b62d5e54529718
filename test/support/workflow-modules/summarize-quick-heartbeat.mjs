/**
 * The example workflow with a 2-second heartbeat on Summarize (so a dead worker is noticed quickly), for the
 * engine's end-to-end tests. With WORKER_HANGS=1 in its environment, Summarize never finishes: the worker
 * process is killed mid-task and another worker gets the retry.
 */
import { activities as example, workflows as examples } from "../../../examples/workflows/summarize/activities.mjs";

const [summarize] = examples;

export const workflows = [
  {
    ...summarize,
    name: "summarize-quick-heartbeat",
    program: {
      ...summarize.program,
      States: { ...summarize.program.States, Summarize: { ...summarize.program.States.Summarize, HeartbeatSeconds: 2 } },
    },
  },
];

export const activities = {
  ...example,
  async summarize(input, ctx) {
    if (process.env.WORKER_HANGS === "1") await new Promise(() => {});
    return example.summarize(input, ctx);
  },
};
