// The lesson panel in Chromium: the first visit's offer; Back, Next and Leave keeping the run; a
// reload coming back to the step; a teacher's file read, its unfollowable lines named, and the
// lesson carried whole by a link; a hostile lesson shown as text with nothing injected or run;
// desktop, tablet and phone sizes by keyboard and touch, a step's target scrolled into view above
// the phone's sheet; and no accessibility rule broken with a lesson open.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { lessonLink } from '../../web/lesson/link.js';
import { axeViolations, openPlayground, SHOTS, untilStatus } from './session.mjs';
import { readLesson } from './lesson-walk.mjs';

let session, page, errors;

before(async () => {
  session = await openPlayground({ width: 1280, height: 800 });
  ({ page, errors } = session);
});
after(() => session?.close());

const lessonsButton = (p) => p.getByRole('button', { name: 'Lessons' });
const stepShown = (p) => p.locator('#lesson-where').textContent();
/** Starts the bundled lesson called `title` from the Lessons menu. */
async function startLesson(p, title, press = 'click') {
  await lessonsButton(p)[press]();
  await p.getByRole('button', { name: title, exact: true })[press]();
  await p.locator('#lesson-where').getByText(/^Step 1 of/).waitFor();
}

test('a first visit offers the first lesson; "Not now" hides the offer for good', async () => {
  const offer = page.locator('#lesson-offer');
  await offer.waitFor();
  assert.match(await offer.textContent(), /“What a model learns first” walks you through training your first model/);
  await page.getByRole('button', { name: 'Not now' }).click();
  assert.ok(await offer.isHidden());
  await page.reload();
  await untilStatus(page, /^Ready/);
  await page.waitForTimeout(500);
  assert.ok(await offer.isHidden(), 'answered once, never offered again');
});

test('Back, Next and Leave keep the run as it is, and a reload comes back to the same step', async () => {
  await startLesson(page, 'What a model learns first');
  assert.equal(await page.getByLabel('Iterations', { exact: true }).inputValue(), '30', 'the step set the page up');
  assert.equal(await page.locator('#corpus').inputValue(), 'names');
  await page.getByLabel('Iterations', { exact: true }).fill('40'); // the learner's own change
  await page.locator('#lesson-next').click();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'lesson-step-title', 'a screen reader reads the new step');
  assert.ok(await page.locator('#lesson-next').isDisabled(), 'Next waits for the run');
  const { within } = readLesson('first-model').steps[1].directives.find((d) => d.name === 'wait');
  assert.match(await page.locator('#lesson-wait').textContent(), new RegExp(`^Next waits for the run to finish\\. It usually comes within ${within} s of training; 0 s so far\\. Press Train`));
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await untilStatus(page, /^Finished 40 steps/, 60000);
  await page.locator('#lesson-next').and(page.locator(':enabled')).waitFor();
  assert.match(await page.locator('#lesson-wait').textContent(), /^Done after \d+ s of training: Next is open\.$/);
  const stats = await page.locator('#stats').textContent();
  await page.locator('#lesson-back').click();
  assert.equal(await page.getByLabel('Iterations', { exact: true }).inputValue(), '40', 'going back does not set the step up again');
  await page.locator('#lesson-next').click();
  await page.locator('#lesson-next').click();
  assert.equal(await stepShown(page), 'Step 3 of 6');
  assert.equal(await page.locator('#stats').textContent(), stats, 'the run is as it was');
  await page.reload();
  await untilStatus(page, /^Restored run/);
  await page.locator('#lesson-where').getByText('Step 3 of 6').waitFor();
  assert.equal(await page.locator('#lesson-step-title').textContent(), 'Common letters');
  await page.getByRole('button', { name: 'Leave' }).click();
  assert.ok(await page.locator('#lesson').isHidden());
  assert.match(await page.locator('#stats').textContent(), /step 40 \/ 40/, 'leaving keeps the run');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'lessons-button');
  assert.deepEqual(errors, []);
});

const TEACHER = `# Our own lesson
Written by a teacher.

## Set up
@setup corpus=names preset=tiny n_layer=3 colour=red
@teleport somewhere
@point nowhere
Three layers this time.

## Train it
@point train
@wait step>=5 within=60
@ask What did the loss do?
`;

test("a teacher's lesson opens from a file, names the lines it cannot follow, and round-trips through a link", async () => {
  await lessonsButton(page).click();
  await page.locator('#lesson-file').setInputFiles({ name: 'ours.md', mimeType: 'text/markdown', buffer: Buffer.from(TEACHER) });
  await page.locator('#lesson-title').getByText('Our own lesson').waitFor();
  assert.equal(await page.getByLabel('Layers').inputValue(), '3', 'what it could set, it set');
  const problems = await page.locator('#lesson-problems-list li').allTextContents();
  assert.equal(problems.length, 3, problems.join(' | '));
  assert.match(problems[0], /^Line 5: @setup colour=red: the model form has no such setting; the setting is skipped$/);
  assert.match(problems[1], /^Line 6: @teleport is not a directive the page knows .*; the line is skipped$/);
  assert.match(problems[2], /^Line 7: @point nowhere: the page has no part called "nowhere"; it has data, corpus, .*; the line is skipped$/);
  await page.locator('#lesson-next').click();
  assert.match(await page.locator('#lesson-asks').textContent(), /^Question: What did the loss do\?$/);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByRole('button', { name: 'Copy link to this lesson' }).click();
  await page.locator('#lesson-share-status').getByText(/^Copied/).waitFor();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(link, /#lesson=[\w-]+&lang=en$/, 'the whole lesson, and the language it opens in');
  const other = await session.newPage();
  try {
    await other.goto(link);
    await other.locator('#lesson-title').getByText('Our own lesson').waitFor();
    assert.equal(await other.locator('#lesson-problems-list li').count(), 3, 'the same lesson, the same lines named');
    assert.equal(await other.getByLabel('Layers').inputValue(), '3');
    assert.equal(await other.locator('#lesson-step-title').textContent(), 'Set up');
  } finally {
    await other.close();
  }
  await page.getByRole('button', { name: 'Leave' }).click();
});

const HOSTILE = `# <img src=x onerror="window.pwned=1">Evil
<script>window.pwned = 2</script>

## <b onmouseover="window.pwned=3">Step</b>
<iframe src="javascript:window.pwned=4"></iframe>
[click me](javascript:window.pwned=5) [data](data:text/html,<script>window.pwned=6</script>) [fine](https://example.org/)
&lt;script&gt; &#60;b&#62;
@setup n_layer=48
@ask <svg onload="window.pwned=7">`;

test('a hostile lesson is shown as text or refused: nothing injected, nothing run, 48 layers asked first', async () => {
  const asked = [];
  const answer = (dialog) => { asked.push(dialog.message()); dialog.dismiss(); };
  page.on('dialog', answer);
  await page.getByLabel('Preset').selectOption('tiny');
  const link = await lessonLink(HOSTILE, session.url);
  const other = await session.newPage();
  other.on('dialog', answer);
  try {
    await other.goto(link);
    await other.locator('#lesson-title').waitFor({ state: 'visible' });
    const lesson = other.locator('#lesson');
    assert.equal(await other.locator('#lesson-title').textContent(), '<img src=x onerror="window.pwned=1">Evil', 'the title, as text');
    assert.match(await lesson.textContent(), /<iframe src="javascript:window.pwned=4"><\/iframe>/);
    assert.match(await lesson.textContent(), /&lt;script&gt; &#60;b&#62;/, 'entities stay as written');
    const injected = await other.evaluate(() => ({
      pwned: window.pwned,
      elements: [...document.querySelectorAll('#lesson script, #lesson img, #lesson iframe, #lesson svg, #lesson b')].length,
      handlers: [...document.querySelectorAll('#lesson *')].flatMap((el) => [...el.attributes].map((a) => a.name)).filter((n) => n.startsWith('on')),
      links: [...document.querySelectorAll('#lesson a')].map((a) => a.href),
    }));
    assert.deepEqual(injected, { pwned: undefined, elements: 0, handlers: [], links: ['https://example.org/'] });
    assert.equal(asked.length, 1, 'the 48 layers asked first');
    assert.match(asked[0], /^This lesson sets up a model of [\d,]+ parameters \(the largest preset, .+, has [\d,]+\), whose run would take about [\d,]+ minutes on one core of a laptop\. Set it up\? Nothing trains until you press Train\.$/);
    assert.equal(await other.getByLabel('Layers').inputValue(), '2', 'declined: the form is as it was');
    assert.match(await other.locator('#lesson-note').textContent(), /not applied/);
    assert.equal(await other.locator('#stats').textContent(), '', 'nothing trained');
    await other.goto(`${session.url}#lesson=${'A'.repeat(20_000)}`);
    await other.locator('#lesson-notice').getByText(/^The link's lesson was not opened: the link's lesson is 20,000 characters long; the page reads links of up to 16,000\.$/).waitFor();
    assert.equal(await other.locator('#lesson-title').textContent(), '<img src=x onerror="window.pwned=1">Evil', 'the lesson open stays open');
  } finally {
    await other.close();
    page.off('dialog', answer);
  }
});

test('by keyboard: the menu, a lesson, Next, and "Show me" moving focus to what the step points at; axe finds nothing', async () => {
  await lessonsButton(page).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'What a model learns first', exact: true }).waitFor();
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'What a model learns first', 'the menu opens on its first lesson');
  await page.keyboard.press('Enter');
  await page.locator('#lesson-where').getByText('Step 1 of 6').waitFor();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'lesson-step-title');
  await page.locator('#lesson-show').focus();
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'corpus', '"Show me" moves the keyboard to the Corpus menu');
  assert.ok(await page.locator('#corpus').evaluate((el) => el.classList.contains('lesson-target')));
  assert.deepEqual(await axeViolations(page), []);
  await page.screenshot({ path: `${SHOTS}61-lesson-desktop.png` });
  await page.getByRole('button', { name: 'Leave' }).click();
  assert.deepEqual(errors, []);
});

for (const [size, viewport] of [['tablet', { width: 820, height: 1180 }], ['phone', { width: 390, height: 844 }]]) {
  test(`at a ${size}'s size, by touch: a step's target scrolls into view above the lesson's sheet, and axe finds nothing`, async () => {
    const small = await openPlayground(viewport, [], { hasTouch: true, isMobile: true });
    try {
      await startLesson(small.page, 'Attention step by step', 'tap');
      const clear = () => { // Train within the screen, above the sheet (once the smooth scroll ends)
        const train = document.getElementById('train').getBoundingClientRect();
        return train.top >= 0 && train.bottom <= document.getElementById('lesson').getBoundingClientRect().top;
      };
      await small.page.waitForFunction(clear, null, { timeout: 3000 }).catch(async () => {
        const [train, sheet] = await Promise.all(['#train', '#lesson'].map((s) => small.page.locator(s).boundingBox()));
        assert.fail(`Train at ${train.y}-${train.y + train.height}, the sheet from ${sheet.y}`);
      });
      const sheet = await small.page.locator('#lesson').boundingBox();
      assert.ok(sheet.height <= viewport.height * 0.46, `the sheet is ${sheet.height} px tall`);
      await small.page.screenshot({ path: `${SHOTS}62-lesson-${size}.png` });
      await small.page.locator('#train').tap();
      await small.page.locator('#lesson-next').and(small.page.locator(':enabled')).waitFor({ timeout: 90000 });
      await small.page.locator('#lesson-fold').tap();
      assert.ok(await small.page.locator('#lesson-body').isHidden(), 'the sheet folds to its bar');
      await small.page.locator('#lesson-fold').tap();
      await small.page.locator('#lesson-next').tap();
      assert.match(await stepShown(small.page), /^Step 2 of \d+$/);
      assert.deepEqual(await axeViolations(small.page), []);
      await small.page.screenshot({ path: `${SHOTS}63-lesson-${size}-walk.png` });
      assert.deepEqual(small.errors, []);
    } finally {
      await small.close();
    }
  });
}

/** Every field of the model form and the Corpus menu, as they read now. */
const formValues = (p) => p.evaluate(() => [...document.getElementById('config').elements, document.getElementById('corpus')]
  .filter((el) => el.name || el.id).map((el) => `${el.name || el.id}=${el.type === 'checkbox' ? el.checked : el.value}`));

for (const [what, setup] of [['96 layers and a block of 100,000', 'n_layer=96 block_size=100000'], ['24 layers of 768 channels', 'n_layer=24 n_embd=768 n_head=12']]) {
  test(`a lesson link setting up ${what} asks first, and a decline leaves every field as it was`, async () => {
    const other = await session.newPage();
    const asked = [];
    other.on('dialog', (dialog) => { asked.push(dialog.message()); dialog.dismiss(); });
    try {
      await other.goto(session.url);
      await untilStatus(other, /^Ready|^Restored/);
      const before = await formValues(other);
      await other.goto(await lessonLink(`# Too big\n\n## Set up\n@setup ${setup}\nA model past the page.\n`, session.url));
      await other.locator('#lesson-title').getByText('Too big').waitFor();
      assert.equal(asked.length, 1, 'asked once');
      assert.match(asked[0], /^This lesson sets up (settings the page cannot train: .+\. Set them up anyway\?|a model of [\d,]+ parameters .+ Set it up\?)/);
      assert.deepEqual(await formValues(other), before, 'declined: every field as it was');
      assert.match(await other.locator('#lesson-note').textContent(), /not applied/);
    } finally {
      await other.close();
    }
  });
}

const LONG_TITLE = `# Notes on https://github.com/karpathy/nanoGPT/blob/master/model.py#L42-L97 ${'and_a_very_long_word_'.repeat(6)}`;

for (const width of [1280, 320]) {
  test(`a 200-character lesson title and a 15,000-character word wrap, and Hide and Leave stay on screen at ${width} px`, async () => {
    const title = LONG_TITLE.slice(0, 202);
    assert.equal(title.length - 2, 200);
    const small = await openPlayground({ width, height: 800 }, [], width < 500 ? { hasTouch: true, isMobile: true } : {});
    try {
      // A teacher's unbroken run of characters wraps inside the panel too.
      await small.page.goto(await lessonLink(`${title}\n\n## One\nA step ${'x'.repeat(15000)} ends.\n`, small.url));
      await small.page.locator('#lesson-title').waitFor({ state: 'visible' });
      const wider = await small.page.evaluate(() => { const p = document.getElementById('lesson'); return p.scrollWidth - p.clientWidth; });
      assert.equal(wider, 0, 'the panel holds its text');
      for (const name of ['Hide', 'Leave']) {
        const box = await small.page.getByRole('button', { name, exact: true }).boundingBox();
        assert.ok(box.x >= 0 && box.x + box.width <= width && box.y >= 0 && box.y + box.height <= 800, `${name} at ${JSON.stringify(box)}`);
      }
      const overflow = await small.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(overflow, 0, 'nothing wider than the screen');
      await small.page.screenshot({ path: `${SHOTS}64-lesson-long-title-${width}.png` });
      await small.page.getByRole('button', { name: 'Leave', exact: true }).click();
      assert.ok(await small.page.locator('#lesson').isHidden(), 'Leave closes it');
      assert.deepEqual(small.errors, []);
    } finally {
      await small.close();
    }
  });
}

test('"Show me" on a view taller than the room above the phone\'s sheet puts its title on screen', async () => {
  const phone = await openPlayground({ width: 390, height: 844 }, [], { hasTouch: true, isMobile: true });
  try {
    const lesson = '# Patching\n\n## Train\n@setup corpus=task:repeat preset=induction max_iters=20\nPress Train.\n@wait finished within=60\n\n'
      + '## Patch it back\n@open patching\nPatching runs a corrupted problem.\n';
    await phone.page.goto(await lessonLink(lesson, phone.url));
    await phone.page.locator('#train').tap();
    await phone.page.locator('#lesson-next').and(phone.page.locator(':enabled')).waitFor({ timeout: 90000 });
    await phone.page.locator('#lesson-next').tap();
    const view = phone.page.locator('[data-view="patching"]');
    await view.locator('summary').waitFor();
    // Taller than the room above the sheet once its grid is drawn.
    await phone.page.waitForFunction(() => document.querySelector('[data-view="patching"]').getBoundingClientRect().height > 844 * 0.55, null, { timeout: 30000 })
      .catch(async () => assert.fail(`the view is ${(await view.boundingBox()).height} px tall`));
    await phone.page.evaluate(() => window.scrollTo(0, 0));
    await phone.page.locator('#lesson-show').tap();
    const onScreen = () => {
      const title = document.querySelector('[data-view="patching"] summary').getBoundingClientRect();
      return title.top >= 0 && title.bottom <= document.getElementById('lesson').getBoundingClientRect().top;
    };
    await phone.page.waitForFunction(onScreen, null, { timeout: 3000 }).catch(async () => {
      const [title, sheet] = await Promise.all(['[data-view="patching"] summary', '#lesson'].map((s) => phone.page.locator(s).boundingBox()));
      assert.fail(`the title at ${title.y}-${title.y + title.height}, the sheet from ${sheet.y}`);
    });
    await phone.page.screenshot({ path: `${SHOTS}65-lesson-show-me-phone.png` });
    assert.deepEqual(phone.errors, []);
  } finally {
    await phone.close();
  }
});

test('on a phone, a step pointed at while a run starts ends up above the sheet: the induction lesson\'s loss chart', async () => {
  const phone = await openPlayground({ width: 390, height: 844 }, [], { hasTouch: true, isMobile: true });
  try {
    await startLesson(phone.page, 'Induction heads', 'tap');
    await phone.page.locator('#train').tap(); // the lines above the chart grow while the next step scrolls to it
    await phone.page.locator('#lesson-next').tap();
    assert.match(await stepShown(phone.page), /^Step 2 of \d+$/);
    const above = () => {
      const chart = document.getElementById('loss-chart').getBoundingClientRect();
      return chart.top >= 0 && chart.bottom <= document.getElementById('lesson').getBoundingClientRect().top;
    };
    await phone.page.waitForTimeout(1500); // the smooth scroll, and its check once settled
    await phone.page.waitForFunction(above, null, { timeout: 3000 }).catch(async () => {
      const [chart, sheet] = await Promise.all(['#loss-chart', '#lesson'].map((s) => phone.page.locator(s).boundingBox()));
      assert.fail(`the chart at ${chart.y}-${chart.y + chart.height}, the sheet from ${sheet.y}`);
    });
    await phone.page.screenshot({ path: `${SHOTS}66-lesson-chart-phone.png` });
    assert.deepEqual(phone.errors, []);
  } finally {
    await phone.close();
  }
});

test('a lesson link opened while a run trains keeps the form and the corpus until the run is paused', async () => {
  await page.getByLabel('Corpus').selectOption('names');
  await page.getByLabel('Preset').selectOption('tiny');
  await page.getByLabel('Iterations', { exact: true }).fill('100000');
  page.on('dialog', (d) => d.accept()); // the "start over?" of a new run
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await page.locator('#stats').getByText(/step [1-9]/).waitFor();
  const before = await formValues(page);
  await page.goto(await lessonLink('# While training\n\n## Set up\n@setup corpus=task:reverse preset=reverse\nA task.\n', session.url));
  await page.locator('#lesson-title').getByText('While training').waitFor();
  await page.locator('#lesson-note').getByText(/^A run is training, so this step's set-up waits/).waitFor();
  assert.deepEqual(await formValues(page), before, 'the run keeps the settings it trains with');
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await untilStatus(page, /^Paused/);
  await page.waitForFunction(() => document.getElementById('corpus').value === 'task:reverse');
  assert.equal(await page.locator('#lesson-note').textContent(), '');
  await page.getByRole('button', { name: 'Leave' }).click();
  assert.deepEqual(errors, []);
});
