//! Commands judged by what happened after them.

use super::*;

#[test]
fn commands_that_rewrite_or_delete_in_place_are_never_repeatable() {
    for command in [
        r#"Get-ChildItem *.md | ForEach-Object { (Get-Content $_) -replace 'a','b' | Set-Content $_ }"#,
        "sed -i 's/a/b/' src/*.rs",
        "perl -pi -e 's/a/b/' *.txt",
        "rm -rf build",
        "cd /p && git reset --hard HEAD~1",
        "git checkout -- src/",
        "git restore .",
        "find . -name '*.orig' -delete",
        r#"psql -d app -c "DROP TABLE users""#,
        "Remove-Item -Recurse dist",
    ] {
        assert!(rewrites_in_place(command), "{command}");
    }
    for command in [
        "cargo test",
        "sed -n 1,20p src/main.rs",
        "git commit -m 'rm the old code'",
        "git checkout main",
        "npm run build",
        r#"psql -d app -c "SELECT 1""#,
    ] {
        assert!(!rewrites_in_place(command), "{command}");
    }
}

#[test]
fn kinds_keep_one_command_each() {
    assert_eq!(command_kind("cargo test -p x"), CommandKind::Test);
    assert_eq!(command_kind("pytest tests/a.py"), CommandKind::Test);
    assert_eq!(command_kind("npm run build"), CommandKind::Build);
    assert_eq!(command_kind("cargo clippy"), CommandKind::Build);
    assert_eq!(
        command_kind("docker exec db psql -U app -d shop"),
        CommandKind::Database
    );
    assert_eq!(command_kind("kubectl apply -f k8s/"), CommandKind::Deploy);
    assert_eq!(command_kind("./deploy.sh prod"), CommandKind::Deploy);
    assert_eq!(command_kind("python3 scripts/convert.py"), CommandKind::Run);
}

#[test]
fn a_script_is_named_whatever_runs_it() {
    assert_eq!(
        script_file("python3 scripts/a.py --x").as_deref(),
        Some("scripts/a.py")
    );
    assert_eq!(
        script_file("cd /p && node tools/gen.mjs").as_deref(),
        Some("tools/gen.mjs")
    );
    assert_eq!(script_file("./run.sh fast").as_deref(), Some("./run.sh"));
    assert_eq!(
        script_file("pwsh -File build.ps1").as_deref(),
        Some("build.ps1")
    );
    assert_eq!(script_file(r#"python -c "print(1)""#), None);
    assert_eq!(script_file("cargo test"), None);
}

#[test]
fn the_user_saying_it_broke_is_heard_in_their_language() {
    for said in [
        "you wiped all seven files",
        "the files are empty now!",
        "revert that please",
        "it doesn't work anymore",
        "ich kann nichts hören",
        "se borraron los archivos",
        "文件都没了",
    ] {
        assert!(reports_breakage(said), "{said}");
    }
    assert!(!reports_breakage("great, now add the footer"));
}

#[test]
fn only_a_command_that_could_not_run_teaches_a_variant() {
    assert!(invocation_error("zsh: command not found: python3").is_some());
    assert!(invocation_error("the input device is not a TTY").is_some());
    assert!(
        invocation_error("cd : Cannot find path 'C:\\Program' because it does not exist.")
            .is_some()
    );
    assert!(invocation_error("test result: FAILED. 3 passed; 1 failed").is_none());
    assert!(is_variant(
        "docker exec -it db psql -U app",
        "docker exec db psql -U app"
    ));
    assert!(is_variant(
        "python3 manage.py migrate",
        "py manage.py migrate"
    ));
    assert!(is_variant(
        r"cd C:\Program Files\app && make",
        r#"cd "C:\Program Files\app" && make"#
    ));
    assert!(!is_variant("cargo test", "cargo test"));
    assert!(!is_variant("npm test", "cargo test"));
    assert!(!is_variant(
        "pytest tests/a.py -k one",
        "pytest tests/b.py -k two --lf -x"
    ));
}

#[test]
fn a_restore_is_seen_in_git_and_in_backups() {
    assert!(restores_files("git restore src/a.rs"));
    assert!(restores_files("git checkout -- ."));
    assert!(restores_files("cp backup/*.md docs/"));
    assert!(restores_files("Copy-Item .\\backup\\* .\\docs\\"));
    assert!(!restores_files("git status"));
    assert!(!restores_files("cp a.txt b.txt"));
}
