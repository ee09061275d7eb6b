/** What `npm run demo` asks when no --question is given: everyday questions a docs reader has. */
export const DEMO_QUESTIONS: readonly string[] = [
  "How do I set up a custom domain for my docs?",
  "How can I preview my documentation locally before publishing?",
  "How do I add Google Analytics to my docs?",
];
