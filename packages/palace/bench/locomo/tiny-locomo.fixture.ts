/** A hand-written sample in LoCoMo's format, small enough to score by hand in the tests. */
export const TINY_LOCOMO = [
  {
    sample_id: "tiny-1",
    conversation: {
      speaker_a: "Ana",
      speaker_b: "Ben",
      session_1_date_time: "1:56 pm on 8 May, 2023",
      session_1: [
        { speaker: "Ana", dia_id: "D1:1", text: "I adopted a puppy named Biscuit last week!" },
        { speaker: "Ben", dia_id: "D1:2", text: "Congrats! What breed is Biscuit?" },
        {
          speaker: "Ana",
          dia_id: "D1:3",
          text: "A beagle. Here he is.",
          img_url: ["https://example.invalid/dog.jpg"],
          blip_caption: "a photo of a small dog on a couch",
        },
      ],
      session_2_date_time: "12:05 am on 1 June, 2023",
      session_2: [
        { speaker: "Ben", dia_id: "D2:1", text: "I ran my first marathon in Boston on Sunday." },
        { speaker: "Ana", dia_id: "D2:2", text: "Amazing, how long did the marathon take you?" },
      ],
      session_3_date_time: "9:00 am on 2 June, 2023",
    },
    qa: [
      { question: "What breed is Ana's dog?", answer: "beagle", evidence: ["D1:3"], category: 1 },
      { question: "Where did Ben run a marathon?", answer: 2023, evidence: ["D2:1; D1:2"], category: 2 },
      {
        question: "What did Ana name her cat?",
        evidence: ["D1:1", "D"],
        category: 5,
        adversarial_answer: "Biscuit",
      },
      { question: "What is Ben's favourite colour?", answer: "unknown", evidence: [], category: 4 },
    ],
  },
];
