/**
 * General topic vocabularies for the keyword vote that files conversations (and project files
 * outside any folder) into rooms. Everyday subjects and the usual parts of software work; nothing
 * is keyed to any dataset, and a `rooms` config replaces these with the user's own.
 * Words are matched after the same light normalisation as the text (lower case, plural "s" off).
 */

export interface TopicRoom {
  name: string;
  keywords: readonly string[];
}

/** Keywords are written as one space-separated string per room, to keep the lists readable. */
function words(list: string): readonly string[] {
  return list.split(" ");
}

export const CONVERSATION_TOPICS: readonly TopicRoom[] = [
  {
    name: "family",
    keywords: words(
      "family kid child children son daughter mom dad mother father parent sister brother grandma grandpa baby wedding husband wife cousin niece nephew",
    ),
  },
  {
    name: "relationships",
    keywords: words(
      "friend friendship dating date partner boyfriend girlfriend relationship love breakup crush community support lgbtq neighbor",
    ),
  },
  {
    name: "work",
    keywords: words(
      "job career work boss manager colleague coworker office interview promotion salary resume hiring meeting deadline client startup business company team",
    ),
  },
  {
    name: "health",
    keywords: words(
      "health doctor hospital sick illness medicine symptom therapy therapist anxiety stress depression sleep diet injury pain surgery mental wellbeing clinic",
    ),
  },
  {
    name: "fitness",
    keywords: words(
      "exercise workout gym run running marathon yoga hike hiking swim swimming cycling bike fitness training sport soccer basketball tennis football",
    ),
  },
  {
    name: "travel",
    keywords: words(
      "travel trip vacation flight airport hotel beach mountain visit tour country city abroad passport road camping journey destination",
    ),
  },
  {
    name: "food",
    keywords: words(
      "food cook cooking recipe bake baking bread sourdough dough flour yeast loaf oven ingredient dinner lunch breakfast restaurant meal cake pizza coffee tea kitchen vegan dish chef",
    ),
  },
  {
    name: "money",
    keywords: words(
      "money budget save saving invest investment stock bank loan debt mortgage rent tax price expense income finance financial insurance pay",
    ),
  },
  {
    name: "learning",
    keywords: words(
      "school class course study student teacher college university degree exam homework learn learning lesson education lecture research thesis scholarship",
    ),
  },
  {
    name: "arts",
    keywords: words(
      "art paint painting draw drawing music song guitar piano concert band sing dance photography photo museum sculpture pottery craft poem poetry",
    ),
  },
  {
    name: "books-and-media",
    keywords: words(
      "book novel read reading author movie film show series episode netflix podcast game gaming video story character fantasy comic",
    ),
  },
  {
    name: "home",
    keywords: words(
      "home house apartment garden gardening plant furniture clean cleaning move moving neighborhood repair renovation room decor yard",
    ),
  },
  {
    name: "pets",
    keywords: words("pet dog cat puppy kitten vet animal horse bird fish walk adopt adoption shelter"),
  },
  {
    name: "feelings",
    keywords: words(
      "feel feeling happy sad proud grateful excited nervous lonely angry afraid hope dream goal motivation confidence journey growth self",
    ),
  },
  {
    name: "events",
    keywords: words(
      "birthday party celebration holiday christmas festival anniversary graduation event parade conference ceremony wedding reunion",
    ),
  },
  {
    name: "volunteering",
    keywords: words(
      "volunteer volunteering charity donate donation fundraiser activism campaign nonprofit cause advocacy mentor mentoring",
    ),
  },
  {
    name: "programming",
    keywords: words(
      "code function bug debug error compile typescript javascript python rust java variable class refactor library package module script algorithm regex",
    ),
  },
  {
    name: "frontend",
    keywords: words(
      "css html react component browser layout style button ui ux frontend page render dom tailwind vue svelte design",
    ),
  },
  {
    name: "backend",
    keywords: words(
      "api server endpoint request response http rest graphql auth authentication token backend route middleware webhook session",
    ),
  },
  {
    name: "data",
    keywords: words(
      "database sql query table schema postgres sqlite mysql index migration data dataset csv json analytics pandas spreadsheet",
    ),
  },
  {
    name: "infrastructure",
    keywords: words(
      "deploy deployment docker kubernetes container cloud aws ci pipeline build release linux terminal shell git github config configuration install vm",
    ),
  },
  {
    name: "testing",
    keywords: words(
      "test testing assert mock fixture coverage vitest jest pytest spec regression benchmark flaky",
    ),
  },
  {
    name: "ai",
    keywords: words(
      "ai model llm prompt embedding agent gpt claude training neural inference token chatbot vector retrieval",
    ),
  },
  {
    name: "writing",
    keywords: words(
      "write writing essay article blog draft edit editing email letter grammar paragraph publish summary translate translation",
    ),
  },
];

/**
 * Rooms for project files that sit in no meaningful folder (the root's README, configs): what
 * kind of file they are, judged by name, headings and content.
 */
export const PROJECT_TOPICS: readonly TopicRoom[] = [
  {
    name: "docs",
    keywords: words(
      "readme guide documentation doc docs overview introduction tutorial usage example faq changelog contributing design architecture",
    ),
  },
  {
    name: "build",
    keywords: words(
      "build compile bundle makefile turbo tsconfig webpack vite esbuild tsup rollup cmake gradle cargo workspace dependency dependencies devdependencies",
    ),
  },
  {
    name: "config",
    keywords: words(
      "config configuration settings env environment lint linter biome eslint prettier editorconfig gitignore option options formatter",
    ),
  },
  {
    name: "ci",
    keywords: words(
      "ci workflow github action actions pipeline job jobs deploy release publish version changeset changesets",
    ),
  },
  {
    name: "security",
    keywords: words(
      "security vulnerability threat sandbox license licence copyright permission privacy disclosure cve",
    ),
  },
  {
    name: "testing",
    keywords: words("test tests testing spec vitest jest pytest coverage fixture fixtures benchmark bench"),
  },
];
