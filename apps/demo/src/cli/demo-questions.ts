/** What `npm run demo` asks when no --question is given: everyday questions a docs reader has. */
export const DEMO_QUESTIONS: readonly string[] = [
  "How do I set up a custom domain for my docs?",
  "How can I preview my documentation locally before publishing?",
  "How do I add Google Analytics to my docs?",
];

/**
 * With memory, the demo opens by stating a fact about the user's project and ends with a question
 * that depends on it: the agent files the first with `remember` and, at the end, recalls it and
 * greps the docs for what it recalled (both visible in the trace).
 */
export const MEMORY_DEMO_QUESTIONS = {
  first: "Remember that my project is hosted on GitLab.",
  last: "How do I set up automatic deployments for my project?",
} as const;
