#!/usr/bin/env node
// Writes assets/stories.txt: short stories for small children in the spirit of TinyStories
// (Eldan & Li, 2023), with a small vocabulary and a plain shape (someone, a wish or a problem, what
// they did, how it ended, what they learned). No package on npm or PyPI ships such a corpus under
// a permissive license, so this project writes its own: plots and word lists below, filled in
// with a seeded generator, so the file is the same on every run. Released under CC0 1.0.
// Usage: node scripts/write-stories.mjs [count=1200]
import { writeFileSync } from 'node:fs';

/** mulberry32: a small seeded generator, so the corpus never changes between runs. */
function generator(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = generator(1337);
const pick = (list) => list[Math.floor(random() * list.length)];

const KIDS = [
  ['Lily', 'she', 'her'], ['Tom', 'he', 'his'], ['Mia', 'she', 'her'], ['Ben', 'he', 'his'], ['Sue', 'she', 'her'],
  ['Max', 'he', 'his'], ['Anna', 'she', 'her'], ['Sam', 'he', 'his'], ['Lucy', 'she', 'her'], ['Tim', 'he', 'his'],
  ['Ella', 'she', 'her'], ['Jack', 'he', 'his'], ['Zoe', 'she', 'her'], ['Leo', 'he', 'his'], ['Rosa', 'she', 'her'],
  ['Kai', 'he', 'his'], ['Nina', 'she', 'her'], ['Omar', 'he', 'his'], ['Ivy', 'she', 'her'], ['Finn', 'he', 'his'],
];
const ANIMALS = ['cat', 'dog', 'bunny', 'bird', 'duck', 'frog', 'bear', 'fox', 'mouse', 'owl', 'puppy', 'kitten', 'pig', 'turtle', 'squirrel'];
const ANIMAL_NAMES = ['Spot', 'Fluffy', 'Max', 'Bella', 'Pip', 'Coco', 'Buddy', 'Daisy', 'Milo', 'Rosie', 'Toby', 'Sunny'];
const TOYS = ['ball', 'kite', 'doll', 'teddy bear', 'toy car', 'boat', 'drum', 'truck', 'hat', 'robot', 'yo-yo', 'train'];
const COLORS = ['red', 'blue', 'yellow', 'green', 'pink', 'purple', 'orange', 'shiny', 'big', 'little', 'soft', 'new'];
/** Where one goes, and how one says being there. */
const PLACES = [
  ['the park', 'at the park'], ['the garden', 'in the garden'], ['the beach', 'on the beach'], ['the forest', 'in the forest'],
  ['the farm', 'on the farm'], ['the lake', 'by the lake'], ['the hill', 'on the hill'], ['the yard', 'in the yard'],
  ['the zoo', 'at the zoo'], ['the meadow', 'in the meadow'],
];
const HIDING = ['under the bed', 'behind a big tree', 'in the tall grass', 'under a bush', 'in a box', 'near the pond', 'under the slide', 'in the sand'];
const SNACKS = ['cookies', 'apples', 'a sandwich', 'berries', 'cherries', 'grapes', 'a banana', 'crackers'];
const BAKES = ['cookies', 'a cake', 'bread', 'pancakes', 'a pie', 'soup', 'muffins', 'pizza'];
const GROWNUPS = [['Mom', 'she'], ['Dad', 'he'], ['Grandma', 'she'], ['Grandpa', 'he']];
/** What scares a child, and where a lost toy would be near it. */
const FEARS = [
  ['the dark', 'in the dark basement'], ['the big dog next door', "by the big dog's house"],
  ['the deep water', 'at the edge of the deep water'], ['the tall slide', 'at the top of the tall slide'],
  ['the old tree house', 'up in the old tree house'], ['the noisy geese', 'next to the noisy geese'],
];
const WEATHER = ['It was a sunny day.', 'The sky was blue and bright.', 'It was a warm morning.', 'The wind was soft and cool.', 'It was a quiet day.'];
const HAPPY = ['happy', 'glad', 'very happy', 'so happy'];
const SAD = ['sad', 'very sad', 'upset', 'a little sad'];
const SHARING_MORALS = ['Sharing makes everyone happy.', 'It is good to help a friend.'];

const cap = (s) => s[0].toUpperCase() + s.slice(1);
const a = (noun) => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);
const opening = ([name], what) => pick([
  `Once upon a time, there was a ${what} named ${name}.`,
  `In a small town, there lived a ${what} named ${name}.`,
  `There once was a ${what} named ${name}.`,
]);
const child = (kid) => (kid[1] === 'she' ? 'little girl' : 'little boy');

/** Each plot writes one story from a child and random details. */
const PLOTS = [
  function lostToy(kid) {
    const [name, he, his] = kid;
    const toy = `${pick(COLORS)} ${pick(TOYS)}`;
    const [grown, gHe] = pick(GROWNUPS);
    return [
      opening(kid, child(kid)), `${cap(he)} had ${a(toy)} that ${he} loved very much.`,
      `One day, ${name} could not find ${his} ${toy}. ${cap(he)} looked everywhere, but it was gone.`,
      `${name} felt ${pick(SAD)}. ${cap(he)} went to ${grown} and said, "I lost my ${toy}!"`,
      `${grown} smiled and said, "Let us look together." ${cap(gHe)} helped ${name} look.`,
      `At last, they found the ${toy} ${pick(HIDING)}. ${name} was ${pick(HAPPY)}.`,
      `${cap(he)} gave ${grown} a big hug and said, "Thank you!"`,
    ];
  },
  function newFriend(kid) {
    const [name, he] = kid;
    const animal = pick(ANIMALS);
    const pet = pick(ANIMAL_NAMES);
    const [place, there] = pick(PLACES);
    return [
      opening(kid, child(kid)), pick(WEATHER), `${name} went to ${place} to play.`,
      `${cap(there)}, ${he} saw a small ${animal}. The ${animal} looked lonely.`,
      `"Hello, little ${animal}," said ${name}. "Do you want to play with me?"`,
      `The ${animal} was shy at first, but then it came closer. ${name} called it ${pet}.`,
      `${name} and ${pet} played all day. They ran and jumped and laughed.`,
      `When the sun went down, ${name} said, "See you tomorrow, ${pet}!" From that day on, they were best friends.`,
    ];
  },
  function sharing(kid) {
    const [name, he, his] = kid;
    const [friend, fHe] = pick(KIDS.filter((k) => k[0] !== name));
    const food = pick(SNACKS);
    return [
      opening(kid, child(kid)), `${name} had ${food} in ${his} bag.`,
      `${cap(he)} went to ${pick(PLACES)[0]} and met ${his} friend ${friend}. ${friend} looked ${pick(SAD)}.`,
      `"What is wrong?" asked ${name}. "I am hungry," said ${friend}. "I have no food."`,
      `${name} wanted to eat it all, but ${he} thought about ${friend}.`,
      `${cap(he)} opened ${his} bag and said, "Let us share!" ${friend} smiled a big smile.`,
      `They ate together and talked and laughed. ${name} felt warm inside.`,
      pick(SHARING_MORALS),
    ];
  },
  function brave(kid) {
    const [name, he, his] = kid;
    const [fear, near] = pick(FEARS);
    const [grown] = pick(GROWNUPS);
    return [
      opening(kid, child(kid)), `${name} was scared of ${fear}.`, `Every day, ${he} stayed far away from it.`,
      `One day, ${his} ${pick(TOYS)} was ${near}. ${name} wanted it back.`,
      `${grown} said, "You can do it. I am right here."`,
      `${name} took a deep breath. ${cap(he)} walked, step by step, and got ${his} toy.`,
      `It was not so bad after all! ${name} felt brave and proud.`,
      'Being brave is not about not being scared. It is about trying anyway.',
    ];
  },
  function helping(kid) {
    const [name, he, his] = kid;
    const animal = pick(ANIMALS);
    return [
      opening(kid, child(kid)), pick(WEATHER), `${name} was ${pick(PLACES)[1]} with ${his} ${pick(['mom', 'dad', 'friend', 'dog'])}.`,
      `Suddenly, ${he} heard a little cry. It was a ${animal}. It was stuck ${pick(HIDING)}.`,
      `"Oh no!" said ${name}. "The ${animal} needs help."`,
      `${name} was careful and gentle. ${cap(he)} moved the sticks and leaves away.`,
      `The ${animal} was free! It jumped up and looked at ${name}, as if to say thank you.`,
      `${name} smiled. Helping the ${animal} made ${his} heart feel big and warm.`,
      'It is good to help others, big or small.',
    ];
  },
  function brokenToy(kid) {
    const [name, he, his] = kid;
    const [friend, fHe, fHis] = pick(KIDS.filter((k) => k[0] !== name));
    const toy = pick(TOYS);
    return [
      opening(kid, child(kid)), `${name} and ${friend} were playing with ${friend}'s ${toy}.`,
      `${name} pulled too hard, and the ${toy} broke. ${friend} started to cry.`,
      `${name} felt bad. ${cap(he)} did not want ${his} friend to be sad.`,
      `"I am sorry," said ${name}. "Let us fix it together." They found some glue and tape.`,
      `They worked and worked, and soon the ${toy} was as good as new.`,
      `${friend} hugged ${name}. "Thank you for helping me fix my ${toy}," ${fHe} said, and ${fHis} eyes were bright again.`,
      'Saying sorry makes things right.',
    ];
  },
  function rainyDay(kid) {
    const [name, he, his] = kid;
    const [grown, gHe] = pick(GROWNUPS);
    const food = pick(BAKES);
    return [
      opening(kid, child(kid)), `One morning, ${name} wanted to go to ${pick(PLACES)[0]}, but it was raining.`,
      `"I am bored," ${he} said. ${cap(he)} looked out the window and felt ${pick(SAD)}.`,
      `${grown} said, "Let us make ${food} together." ${name} liked that idea.`,
      `They mixed and stirred and laughed. The kitchen smelled so good.`,
      `When the ${food.replace(/^an? /, '')} ${/s$/.test(food) ? 'were' : 'was'} ready, the rain stopped and the sun came out.`,
      `${name} said, "This was the best rainy day ever!" ${grown} smiled, and ${gHe} gave ${name} a hug.`,
    ];
  },
  function race(kid) {
    const [name, he, his] = kid;
    const [a1, a2] = [pick(ANIMALS), pick(['turtle', 'snail', 'duck', 'pig'])];
    return [
      opening(kid, child(kid)), `${name} had two pets, a fast ${a1} and a slow ${a2}.`,
      `One day, the ${a1} said, "I am the fastest! Let us have a race." The ${a2} said, "Yes, let us race."`,
      `The ${a1} ran very fast, but then it stopped to play and fell asleep in the sun.`,
      `The ${a2} did not stop. It went slow, but it kept going and going.`,
      `When the ${a1} woke up, the ${a2} had already won! ${name} clapped ${his} hands.`,
      `The ${a1} said, "I am sorry I was proud." The ${a2} smiled, and they were friends again.`,
      'It is good to be patient. Slow and steady can win the race.',
    ];
  },
];

const count = Number(process.argv[2] ?? 1200);
const stories = Array.from({ length: count }, () => pick(PLOTS)(pick(KIDS)).join(' '));
const text = `${stories.join('\n\n')}\n`;
writeFileSync(new URL('../assets/stories.txt', import.meta.url), text);
console.log(`assets/stories.txt: ${stories.length} stories, ${text.length.toLocaleString('en-US')} characters`);
