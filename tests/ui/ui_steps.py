"""Steps a learner takes in the web UI, shared by the browser tests (Playwright pages)."""


def open_tab(page, name: str) -> None:
    page.get_by_role("tab", name=name).click()


def ask(page, question: str) -> None:
    page.fill("#tuile-question textarea", question)
    page.click("#tuile-send")


def ask_until_taken(page, question: str, timeout_ms: int = 60_000) -> None:
    """Send ``question`` until the chat shows it as a new user bubble.

    Gradio drops a click while the previous answer's event is still open (trigger_mode
    "once"), as a learner clicking during an answer sees; the text stays in the box, so
    the click is simply repeated.
    """
    users = "#tuile-chat .message.user"
    n = page.locator(users).count()
    waited = 0
    while waited < timeout_ms:
        if page.input_value("#tuile-question textarea") != question:
            page.fill("#tuile-question textarea", question)
        page.click("#tuile-send")
        try:
            page.wait_for_function("([sel, n]) => document.querySelectorAll(sel).length > n",
                                   arg=[users, n], timeout=1_000)
            return
        except Exception:
            waited += 1_000
    raise AssertionError(f"la question « {question} » n'a jamais été prise")
