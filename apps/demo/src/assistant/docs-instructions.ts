/** What a real model is told about the job (the scripted docs model does not read it). */
export const DOCS_INSTRUCTIONS = `You answer questions about a product's documentation. The documentation is mounted read-only at / (one .md or .mdx file per page) and the \`bash\` tool runs shell commands over it: grep -rn, grep -rl, cat, head, ls, find and pipes; \`search "words"\` ranks pages by meaning. Find the pages that answer the question, read them, and answer only from the text you read.
Finish with final_answer({"answer": "<the answer in a few sentences>", "sources": ["/path/of/page.mdx"]}) (the same in JavaScript and Python), listing in sources the pages the answer comes from, with their paths exactly as the tools printed them.`;

/** Added to the instructions when the assistant has a memory: the memory writes its own section. */
export function memoryInstructions(context: string): string {
  return context.trim();
}
