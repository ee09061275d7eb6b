import { seededRandom } from "@atrium/bench";
import type { DrawerDraft } from "../src/drawers/drawer.js";

/**
 * Deterministic synthetic memories for the scale benchmarks: conversations between people about
 * everyday topics, one drawer per turn, with a vocabulary wide enough (and word frequencies
 * skewed enough) that BM25 and the vectors face a realistic spread of common and rare words.
 * Seeded, so every run and every machine builds the same palace and asks the same questions.
 *
 * Bump `SYNTHETIC_VERSION` whenever what this module produces changes: cached palaces are keyed by it.
 */
export const SYNTHETIC_VERSION = 1;

const words = (text: string) => text.trim().split(/\s+/);

const NAMES = words(`
  Ada Ben Cleo Dev Elena Farid Greta Hugo Ines Jonas Kira Liam Mara Nico Olga Pavel Quinn Rosa Sami Tariq
  Uma Vera Wes Xena Yusuf Zoe Amara Bruno Chloe Dario Esme Felix Gina Hamid Ivy Jude Kemal Lena Milo Noor
  Otto Petra Rafael Sofia Theo Ulla Viktor Wanda Yara Zane`);
const PLACES = words(`
  Lisbon Kyoto Oslo Denver Nairobi Seville Montreal Tbilisi Hanoi Porto Dublin Krakow Valparaiso Auckland
  Marrakesh Bergen Cusco Tallinn Bologna Austin Halifax Ljubljana Hobart Cork Tromso Salzburg Granada
  Zanzibar Queenstown Galway the-lake the-coast the-mountains the-old-town the-market the-harbour`);
const ACTIVITIES = words(`
  hiking climbing kayaking sailing cycling running swimming skiing surfing birdwatching fishing camping
  pottery painting knitting woodworking baking gardening photography chess salsa tango yoga boxing
  fencing archery rowing snorkeling skating calligraphy origami juggling`);
const FOODS = words(`
  ramen paella dumplings risotto tacos curry pho lasagne falafel sushi goulash pierogi tagine ceviche
  gnocchi brisket shakshuka laksa moussaka empanadas bibimbap croissants sourdough kimchi tiramisu`);
const PETS = words(
  `puppy kitten parrot tortoise hamster rabbit goldfish beagle terrier labrador tabby gecko`,
);
const PET_NAMES = words(`Biscuit Pepper Mochi Luna Ziggy Waffles Nutmeg Pickle Juniper Olive Basil Pretzel`);
const WORK = words(`
  migration deadline roadmap prototype budget audit launch refactor interview promotion contract invoice
  dashboard pipeline release onboarding offsite benchmark outage review proposal grant thesis manuscript`);
const BOOKS = words(`
  novel memoir biography poetry thriller atlas cookbook graphic-novel short-stories essay-collection`);
const FEELINGS = words(`
  thrilled exhausted nervous proud relieved curious overwhelmed grateful restless hopeful amused calm`);
const FAMILY = words(`sister brother mother father grandmother cousin niece nephew aunt uncle daughter son`);
const DAYS = words(`Monday Tuesday Wednesday Thursday Friday Saturday Sunday weekend`);
const MONTHS = words(`January February March April May June July August September October November December`);

/** Topics: each a room, each with the sentence patterns its turns are drawn from. */
const TOPICS: Record<string, readonly string[]> = {
  travel: [
    "We finally booked the trip to {place} for {month}, I can't wait.",
    "The flight to {place} got delayed by {n} hours, so we slept at the airport.",
    "Have you ever been to {place}? {name} says the food there is amazing.",
    "I'm thinking of going to {place} again next {month}, maybe with {name}.",
    "The hostel in {place} was cheap but the view from the roof was worth every cent.",
  ],
  food: [
    "I tried making {food} from scratch on {day} and it took {n} hours.",
    "{name} brought homemade {food} to the party and everyone wanted the recipe.",
    "There's a new place near the station that does the best {food} I've had in years.",
    "My {family} taught me to cook {food} when I was {n}.",
    "Honestly I could eat {food} every day, especially after {activity}.",
  ],
  hobbies: [
    "I started {activity} lessons on {day} evenings, the teacher is {name}.",
    "After {n} months of {activity} I finally feel like I know what I'm doing.",
    "{name} and I went {activity} near {place} and got caught in the rain.",
    "I signed up for a {activity} competition in {month}, I'm {feeling} about it.",
    "My shoulder hurts from {activity}, I think I overdid it on {day}.",
  ],
  pets: [
    "We adopted a {pet} named {petname} last {day}!",
    "{petname} chewed through my headphones again, that {pet} is a menace.",
    "Taking {petname} to the vet on {day}, {pet}s hate the car.",
    "{name} is looking after {petname} while I'm in {place}.",
    "My {family} wants a {pet} too after meeting {petname}.",
  ],
  work: [
    "The {work} is due on {day} and we're nowhere near done.",
    "{name} is leading the {work} now, which is a relief.",
    "I had my {work} meeting with {name} today, it went better than expected.",
    "We spent {n} hours on the {work} and then the client changed their mind.",
    "I'm {feeling} about the {work}, it's the biggest thing I've owned so far.",
  ],
  family: [
    "My {family} is visiting from {place} in {month}.",
    "I called my {family} on {day}, we talked for {n} hours.",
    "My {family} just started {activity}, she's obsessed.",
    "We're planning a surprise party for my {family}'s {n}th birthday.",
    "My {family} and {name} finally met and they got along great.",
  ],
  books: [
    "I just finished a {book} about {place}, couldn't put it down.",
    "{name} recommended a {book} on {activity}, I'm halfway through.",
    "Our book club picked a {book} for {month}, I'm {feeling}.",
    "I've read {n} books this year, mostly {book}s.",
    "The {book} {name} lent me made me want to visit {place}.",
  ],
  health: [
    "I've been sleeping badly since {day}, maybe it's the {work}.",
    "The doctor said to rest my knee for {n} weeks, so no {activity} for a while.",
    "I ran {n} kilometres on {day}, my best since {month}.",
    "{name} got me into morning {activity} and I feel {feeling}.",
    "I'm cutting back on coffee, day {n} and I'm {feeling}.",
  ],
};
const TOPIC_NAMES = Object.keys(TOPICS);

const REPLIES = [
  "That sounds {feeling}, tell me more!",
  "No way, when was that?",
  "Ha, typical {name}.",
  "I remember you mentioned {place} before.",
  "How did your {family} take it?",
  "Wow, {n} hours is a lot.",
  "Send me a photo!",
  "Same here, honestly.",
  "Good luck, you'll do great.",
  "Wait, is that the one near {place}?",
];

const pick = <T>(random: () => number, list: readonly T[]): T =>
  list[Math.floor(random() * list.length)] as T;

/** Skewed towards the head of `list` (Zipf-like), so a few words are common and most are rare. */
const pickSkewed = <T>(random: () => number, list: readonly T[]): T =>
  list[Math.floor(random() ** 2 * list.length)] as T;

function fill(random: () => number, pattern: string): string {
  return pattern.replace(/\{(\w+)\}/g, (_, slot: string) => {
    switch (slot) {
      case "name":
        return pickSkewed(random, NAMES);
      case "place":
        return pickSkewed(random, PLACES).replace(/-/g, " ");
      case "activity":
        return pickSkewed(random, ACTIVITIES);
      case "food":
        return pickSkewed(random, FOODS);
      case "pet":
        return pick(random, PETS);
      case "petname":
        return pick(random, PET_NAMES);
      case "work":
        return pickSkewed(random, WORK);
      case "book":
        return pick(random, BOOKS).replace(/-/g, " ");
      case "feeling":
        return pick(random, FEELINGS);
      case "family":
        return pick(random, FAMILY);
      case "day":
        return pick(random, DAYS);
      case "month":
        return pick(random, MONTHS);
      case "n":
        return String(2 + Math.floor(random() * 40));
      default:
        throw new Error(`synthetic pattern ${JSON.stringify(pattern)} has an unknown slot {${slot}}`);
    }
  });
}

export interface SyntheticOptions {
  /** Drawers (turns) to generate. */
  drawers: number;
  /** Wings the conversations are spread over (one person each). */
  wings: number;
  seed: number;
}

/** The wing of the i-th synthetic person. */
export function syntheticWing(index: number): string {
  return `person-${String(index).padStart(3, "0")}`;
}

/**
 * `options.drawers` turns of synthetic conversations (10–40 turns each, one topic each, filed in
 * the topic's room of a random wing), in conversation order with positions, speakers and times.
 */
export function* syntheticDrafts(options: SyntheticOptions): Generator<DrawerDraft> {
  const random = seededRandom(options.seed);
  const start = Date.UTC(2022, 0, 1);
  let made = 0;
  for (let conversation = 0; made < options.drawers; conversation++) {
    const wingIndex = Math.floor(random() * options.wings);
    const wing = syntheticWing(wingIndex);
    const topic = pick(random, TOPIC_NAMES);
    const patterns = TOPICS[topic] as readonly string[];
    const speakers = [NAMES[wingIndex % NAMES.length] as string, pick(random, NAMES)];
    const turns = Math.min(10 + Math.floor(random() * 31), options.drawers - made);
    const source = `synthetic/${conversation}`;
    const time = start + conversation * 3 * 3600_000;
    for (let position = 0; position < turns; position++) {
      const sentences = 1 + Math.floor(random() * 3);
      const parts: string[] = [];
      for (let s = 0; s < sentences; s++) {
        // Mostly on topic; sometimes a short reply, sometimes a line from another topic.
        const roll = random();
        const pattern =
          roll < 0.7
            ? pick(random, patterns)
            : roll < 0.85
              ? pick(random, REPLIES)
              : pick(random, TOPICS[pick(random, TOPIC_NAMES)] as readonly string[]);
        parts.push(fill(random, pattern));
      }
      yield {
        content: parts.join(" "),
        wing,
        room: topic,
        hall: "conversations",
        source,
        position,
        speaker: speakers[position % 2] as string,
        turnId: `${conversation}:${position}`,
        sessionId: source,
        timestamp: new Date(time + position * 60_000).toISOString(),
      };
      made++;
    }
  }
}

/** Questions of the kind a user asks a memory: about a person, place, activity, food, pet or job. */
const QUESTIONS = [
  "When did {name} go {activity} near {place}?",
  "What was the recipe for {food}?",
  "Who is leading the {work}?",
  "What is the name of the {pet}?",
  "Which {book} did {name} recommend?",
  "When is my {family} visiting from {place}?",
  "How long did the flight to {place} take?",
  "What did I say about {activity} lessons?",
  "Where do they make the best {food}?",
  "How is the {work} going?",
];

/** `count` seeded questions, each with a wing to scope it to. */
export function syntheticQueries(
  count: number,
  wings: number,
  seed: number,
): { query: string; wing: string }[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => ({
    query: fill(random, pick(random, QUESTIONS)),
    wing: syntheticWing(Math.floor(random() * wings)),
  }));
}
