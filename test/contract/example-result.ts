/** What the integrator example (integrator-example.ts) returns; apart from it so that tests can name it without the generated types. */
export interface ExampleResult {
  userName: string;
  persons: { user_name: string; name: string }[];
  signedOn: { event_id: number; title: string; status: string } | null;
  /** What the API said to a sign-on to an event that does not exist. */
  error: { status: number; errorcode: number; message: string };
}

export type IntegratorExample = (
  baseUrl: string,
  credentials: { user_name: string; password: string },
  fetch?: typeof globalThis.fetch,
) => Promise<ExampleResult>;
