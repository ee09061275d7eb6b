/**
 * Contract suites are plain data: a list of named cases, each an async function that throws on
 * failure. That keeps them independent of any test runner (see `describeContract` for vitest)
 * and lets a test run a suite against a broken implementation and check which cases fail.
 */
export interface ContractCase<Subject> {
  name: string;
  run(factory: () => Promise<Subject>): Promise<void>;
}

export interface Contract<Subject> {
  name: string;
  factory: () => Promise<Subject>;
  cases: ContractCase<Subject>[];
}

export interface ContractOutcome {
  name: string;
  passed: boolean;
  error?: unknown;
}

/** Runs every case in order and reports each outcome (never throws). */
export async function runContract<Subject>(contract: Contract<Subject>): Promise<ContractOutcome[]> {
  const outcomes: ContractOutcome[] = [];
  for (const testCase of contract.cases) {
    try {
      await testCase.run(contract.factory);
      outcomes.push({ name: testCase.name, passed: true });
    } catch (error) {
      outcomes.push({ name: testCase.name, passed: false, error });
    }
  }
  return outcomes;
}

/** Creates a subject, hands it to `body`, and always disposes it afterwards. */
export async function withSubject<Subject>(
  factory: () => Promise<Subject>,
  dispose: (subject: Subject) => Promise<void> | void,
  body: (subject: Subject) => Promise<void>,
): Promise<void> {
  const subject = await factory();
  try {
    await body(subject);
  } finally {
    await dispose(subject);
  }
}

/** Rejects if `promise` has not settled within `ms`, so a broken subject cannot hang a suite. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
