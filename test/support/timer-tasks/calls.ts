/**
 * What the stub timer handlers were called with. Kept on globalThis: the local Scheduler imports the
 * handler modules by file URL, which may give them module instances of their own.
 */
export interface TimerCall {
  handler: string;
  event: any;
  functionArn: string;
}

const calls = ((globalThis as { __timerCalls?: TimerCall[] }).__timerCalls ??= []);

export const record = (handler: string, event: any, functionArn: string) => void calls.push({ handler, event, functionArn });

/** The calls whose event carries this `id` (each test arms timers with ids of its own). */
export const callsOf = (id: string): TimerCall[] => calls.filter((c) => c.event?.id === id);

/** How a test timer asks the stub to behave. */
export interface StubTimer {
  [key: string]: unknown;
  id: string;
  /** The first this many calls throw. */
  failTimes?: number;
}
