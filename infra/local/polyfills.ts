/**
 * Node 22 APIs the local engine needs on Node 20. aws-local-stepfunctions calls Promise.withResolvers in
 * every Task state; without it each Task fails with a TypeError (and its rejected promise crashes the process).
 */
interface WithResolvers {
  withResolvers?: <T>() => { promise: Promise<T>; resolve: (value: T | PromiseLike<T>) => void; reject: (reason?: unknown) => void };
}

const promise = Promise as unknown as WithResolvers & PromiseConstructor;
if (typeof promise.withResolvers !== "function") {
  promise.withResolvers = function <T>(this: PromiseConstructor) {
    let resolve!: (value: T | PromiseLike<T>) => void;
    let reject!: (reason?: unknown) => void;
    const created = new this<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise: created, resolve, reject };
  };
}
