"""Steps a learner takes in the web UI, shared by the browser tests (Playwright pages)."""


def open_tab(page, name: str) -> None:
    page.get_by_role("tab", name=name).click()


def ask(page, question: str) -> None:
    page.fill("#tuile-question textarea", question)
    page.click("#tuile-send")
